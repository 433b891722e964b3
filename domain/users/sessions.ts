import { createHash, randomBytes } from 'node:crypto';
import { Op } from 'sequelize';
import { DashboardSession, Membership, type Environment, type MembershipRole } from '../../db/models';
import { readDashboardSession, readUserWorkspaces, type WorkspaceChoice } from '../../db/dashboard-sessions';
import { AppError, notFound } from '../../lib/errors';
import { newId } from '../../lib/ids';
import type { AuthContext, WorkspaceSummary } from '../auth-context';
import type { ServiceDeps } from '../service-deps';
import { verifyPassword } from './passwords';

export type { WorkspaceChoice } from '../../db/dashboard-sessions';
import { findUserByEmail } from './service';

/** The cookie's value: 256 random bits, stored only as its SHA-256 (like API keys, enough entropy for a fast hash). */
const newToken = () => randomBytes(32).toString('base64url');
const tokenHash = (token: string) => createHash('sha256').update(token, 'utf8').digest('hex');

/** A signed-in dashboard browser, read from the database on every request. */
export interface DashboardIdentity {
  sessionId: string;
  userId: string;
  email: string;
  role: MembershipRole;
  environment: Environment;
  csrfToken: string;
  expiresAt: Date;
  workspace: WorkspaceSummary;
  /** Every workspace the user belongs to, for the switcher. */
  workspaces: WorkspaceChoice[];
  /** What the domain services are called with: this workspace and environment, this user as the actor. */
  auth: AuthContext;
}

export type SignInResult = { outcome: 'signed_in'; token: string; expiresAt: Date } | { outcome: 'refused' } | { outcome: 'no_workspace' };

/**
 * Dashboard sign-in and sessions (docs/decisions/dashboard.md). A session exists only from a successful sign-in,
 * with a fresh random token: a cookie planted before sign-in is never adopted (no fixation), and signing in
 * ends the browser's previous session. Each session has a fixed expiry (DASHBOARD_SESSION_TTL) and its own
 * synchronizer CSRF token.
 */
export function createDashboardSessionService({ sequelize, config }: Pick<ServiceDeps, 'sequelize' | 'config'>) {
  async function signOut(token: string): Promise<void> {
    await DashboardSession.destroy({ where: { tokenHash: tokenHash(token) } });
  }

  return {
    /**
     * Checks the password (the same argon2id work whether or not the e-mail is known) and opens a session on the
     * user's first workspace, in test mode. `previousToken`, the browser's old cookie, is ended either way.
     */
    async signIn(input: { email: string; password: string; previousToken?: string }): Promise<SignInResult> {
      if (input.previousToken) await signOut(input.previousToken);
      const user = await findUserByEmail(input.email);
      if (!(await verifyPassword(user?.passwordHash ?? null, input.password)) || !user) return { outcome: 'refused' };
      const [first] = await readUserWorkspaces(sequelize, user.id);
      if (!first) return { outcome: 'no_workspace' };
      const token = newToken();
      const expiresAt = new Date(Date.now() + config.DASHBOARD_SESSION_TTL);
      await sequelize.transaction(async (transaction) => {
        // The user's sessions that ran out are cleared at each sign-in, so the table holds live ones and a few more.
        await DashboardSession.destroy({ where: { userId: user.id, expiresAt: { [Op.lte]: new Date() } }, transaction });
        await DashboardSession.create(
          { id: newId('dss'), tokenHash: tokenHash(token), userId: user.id, accountId: first.id, environment: 'test', csrfToken: newToken(), expiresAt },
          { transaction },
        );
      });
      return { outcome: 'signed_in', token, expiresAt };
    },

    /** The identity behind a cookie's value; null when unknown, expired or no longer a member. */
    async resolve(token: string): Promise<DashboardIdentity | null> {
      const row = await readDashboardSession(sequelize, tokenHash(token));
      if (!row) return null;
      const workspaces = await readUserWorkspaces(sequelize, row.userId);
      const workspace: WorkspaceSummary = {
        id: row.accountId,
        name: row.name,
        slug: row.slug,
        plan: row.plan,
        fulfillmentEnabled: row.fulfillmentEnabled,
        paymentEnabled: row.paymentEnabled,
      };
      return {
        sessionId: row.sessionId,
        userId: row.userId,
        email: row.email,
        role: row.role,
        environment: row.environment,
        csrfToken: row.csrfToken,
        expiresAt: row.expiresAt,
        workspace,
        workspaces,
        auth: { accountId: row.accountId, environment: row.environment, apiKeyId: null, userId: row.userId, access: 'secret', account: workspace },
      };
    },

    signOut,

    /** Ends every session of the user, on every browser, this one included. */
    async signOutEverywhere(userId: string): Promise<number> {
      return DashboardSession.destroy({ where: { userId } });
    },

    /** The workspace the session shows; one the user is not a member of is 404 (as another workspace's id is). */
    async switchWorkspace(identity: Pick<DashboardIdentity, 'sessionId' | 'userId'>, accountId: string): Promise<void> {
      const member = await Membership.findOne({ where: { userId: identity.userId, accountId } });
      if (!member) throw notFound('Workspace');
      await DashboardSession.update({ accountId }, { where: { id: identity.sessionId } });
    },

    /** The test/live toggle. */
    async switchEnvironment(identity: Pick<DashboardIdentity, 'sessionId'>, environment: Environment): Promise<void> {
      if (environment !== 'test' && environment !== 'live') throw new AppError('VALIDATION_ERROR', 'environment must be test or live');
      await DashboardSession.update({ environment }, { where: { id: identity.sessionId } });
    },
  };
}

export type DashboardSessionService = ReturnType<typeof createDashboardSessionService>;
