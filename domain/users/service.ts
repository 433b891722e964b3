import { col, fn, UniqueConstraintError, where, type Transaction } from 'sequelize';
import { z } from 'zod';
import { Account, Membership, User, type MembershipRole } from '../../db/models';
import { AppError, notFound, validationError } from '../../lib/errors';
import { newId } from '../../lib/ids';
import type { ServiceDeps } from '../service-deps';
import { checkPassword, generatePassword, hashPassword } from './passwords';

const EMAIL = z.email().max(254);

/** An e-mail as typed, trimmed; refused unless it is one address. Stored as given, compared case-insensitively. */
export function normaliseEmail(email: string): string {
  const trimmed = email.trim();
  if (!EMAIL.safeParse(trimmed).success) throw validationError('email must be one e-mail address', [{ field: 'email', message: 'not an e-mail address' }]);
  return trimmed;
}

/** The user of this e-mail, whatever its case. */
export function findUserByEmail(email: string, transaction?: Transaction): Promise<User | null> {
  return User.findOne({ where: where(fn('lower', col('email')), email.trim().toLowerCase()), transaction });
}

/** The workspace's owner, where the notices the documents name go; null for a workspace created without one. */
export async function findOwner(accountId: string, transaction?: Transaction): Promise<{ userId: string; email: string } | null> {
  const owner = await Membership.findOne({ where: { accountId, role: 'owner' }, transaction });
  const user = owner ? await User.findByPk(owner.userId, { transaction }) : null;
  return user ? { userId: user.id, email: user.email } : null;
}

/** A user's e-mail, as a notice names who acted. */
export async function findUserEmail(userId: string, transaction?: Transaction): Promise<string | null> {
  return (await User.findByPk(userId, { transaction }))?.email ?? null;
}

export interface CreatedUser {
  userId: string;
  email: string;
  /** Only when it was generated: shown once, never stored. */
  password?: string;
}

/** Creates a user; the password is the one given (checked) or a generated one, returned once. */
async function insertUser(tx: Transaction, email: string, password: string | undefined): Promise<CreatedUser> {
  const chosen = password ?? generatePassword();
  if (password !== undefined) checkPassword(password);
  try {
    const user = await User.create({ id: newId('usr'), email: normaliseEmail(email), passwordHash: await hashPassword(chosen) }, { transaction: tx });
    return { userId: user.id, email: user.email, ...(password === undefined ? { password: chosen } : {}) };
  } catch (err) {
    if (err instanceof UniqueConstraintError) throw new AppError('VALIDATION_ERROR', `a user with e-mail ${email.trim()} exists`, [{ field: 'email', message: 'taken' }], { conflict: true });
    throw err;
  }
}

/**
 * Adds the membership; "exactly one owner per workspace": a second owner is refused, and so is a second membership
 * of the same user. The checks give the clear message; the primary key and the partial unique index hold the same
 * under concurrency (then the refusal is the generic one).
 */
async function insertMembership(tx: Transaction, userId: string, accountId: string, role: MembershipRole): Promise<void> {
  if (await Membership.findOne({ where: { userId, accountId }, transaction: tx })) {
    throw new AppError('VALIDATION_ERROR', 'the user is a member of this workspace already', [{ field: 'email', message: 'already a member' }], { conflict: true });
  }
  if (role === 'owner' && (await Membership.findOne({ where: { accountId, role: 'owner' }, transaction: tx }))) {
    throw new AppError('VALIDATION_ERROR', 'the workspace has an owner already; a workspace has exactly one', [{ field: 'role', message: 'owner taken' }], { conflict: true });
  }
  try {
    await Membership.create({ userId, accountId, role }, { transaction: tx });
  } catch (err) {
    if (err instanceof UniqueConstraintError) throw new AppError('VALIDATION_ERROR', 'the membership changed at the same moment; try again', undefined, { conflict: true });
    throw err;
  }
}

/**
 * The owner of a new workspace, inside its creating transaction: the user of that e-mail if there is one, else a
 * new user with a generated password (returned once).
 */
export async function attachOwner(tx: Transaction, accountId: string, email: string): Promise<CreatedUser> {
  const existing = await findUserByEmail(email, tx);
  const owner = existing ? { userId: existing.id, email: existing.email } : await insertUser(tx, email, undefined);
  await insertMembership(tx, owner.userId, accountId, 'owner');
  return owner;
}

export interface WorkspaceRef {
  /** A slug, or an `acc_` id. */
  workspace: string;
}

/** People: users and their memberships (the operator CLI; the dashboard's own pages later). */
export function createUserService({ sequelize }: Pick<ServiceDeps, 'sequelize'>) {
  async function workspaceOf(tx: Transaction, ref: string): Promise<Account> {
    const account = await Account.findOne({ where: ref.startsWith('acc_') ? { id: ref } : { slug: ref }, transaction: tx });
    if (!account) throw notFound('Workspace');
    return account;
  }

  return {
    /** A new user and its first membership; `password` undefined generates one, returned once. */
    async create(input: { email: string; password?: string; role: MembershipRole } & WorkspaceRef): Promise<CreatedUser & { accountId: string; role: MembershipRole }> {
      return sequelize.transaction(async (tx) => {
        const account = await workspaceOf(tx, input.workspace);
        const user = await insertUser(tx, input.email, input.password);
        await insertMembership(tx, user.userId, account.id, input.role);
        return { ...user, accountId: account.id, role: input.role };
      });
    },

    /** An existing user joins another workspace. */
    async addMember(input: { email: string; role: MembershipRole } & WorkspaceRef): Promise<{ userId: string; email: string; accountId: string; role: MembershipRole }> {
      return sequelize.transaction(async (tx) => {
        const account = await workspaceOf(tx, input.workspace);
        const user = await findUserByEmail(input.email, tx);
        if (!user) throw notFound('User');
        await insertMembership(tx, user.id, account.id, input.role);
        return { userId: user.id, email: user.email, accountId: account.id, role: input.role };
      });
    },

    /** The owner's e-mail, where the notices the documents name go; null for a workspace created without one. */
    async ownerEmail(accountId: string): Promise<string | null> {
      return (await findOwner(accountId))?.email ?? null;
    },
  };
}

export type UserService = ReturnType<typeof createUserService>;
