import type { QueryInterface } from 'sequelize';

// The dashboard's people (docs/decisions/dashboard.md): users sign in with an e-mail (unique whatever its case) and
// a password kept only as an argon2id hash; memberships give a user a role in a workspace, and the partial unique
// index holds "one owner per workspace" under any concurrency. Dashboard sessions live here too, found by the
// SHA-256 of the cookie's value (the value itself is never stored), each with its synchronizer CSRF token and a
// fixed expiry. Audit entries and stock movements may now name a user as their actor.
export async function up(qi: QueryInterface): Promise<void> {
  await qi.sequelize.query(`
    CREATE TABLE users (
      id text PRIMARY KEY,
      email text NOT NULL CHECK (length(email) BETWEEN 3 AND 254),
      password_hash text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE UNIQUE INDEX users_email_lower ON users (lower(email));

    CREATE TABLE memberships (
      user_id text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      account_id text NOT NULL REFERENCES accounts(id),
      role text NOT NULL CHECK (role IN ('owner', 'member')),
      created_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (user_id, account_id)
    );
    CREATE UNIQUE INDEX memberships_one_owner ON memberships (account_id) WHERE role = 'owner';
    CREATE INDEX memberships_account ON memberships (account_id);

    CREATE TABLE dashboard_sessions (
      id text PRIMARY KEY,
      token_hash text NOT NULL UNIQUE,
      user_id text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      account_id text NOT NULL REFERENCES accounts(id),
      environment text NOT NULL CHECK (environment IN ('test', 'live')),
      csrf_token text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      expires_at timestamptz NOT NULL
    );
    CREATE INDEX dashboard_sessions_user ON dashboard_sessions (user_id);
    CREATE INDEX dashboard_sessions_expires_at ON dashboard_sessions (expires_at);

    ALTER TABLE audit_logs ADD COLUMN actor_user_id text;
    ALTER TABLE stock_movements DROP CONSTRAINT stock_movements_actor_type_check;
    ALTER TABLE stock_movements ADD CONSTRAINT stock_movements_actor_type_check CHECK (actor_type IN ('api_key', 'workflow', 'user'));
  `);
}

export async function down(qi: QueryInterface): Promise<void> {
  await qi.sequelize.query(`
    ALTER TABLE stock_movements DROP CONSTRAINT stock_movements_actor_type_check;
    ALTER TABLE stock_movements ADD CONSTRAINT stock_movements_actor_type_check CHECK (actor_type IN ('api_key', 'workflow'));
    ALTER TABLE audit_logs DROP COLUMN actor_user_id;
    DROP TABLE dashboard_sessions;
    DROP TABLE memberships;
    DROP TABLE users;
  `);
}
