import type { QueryInterface } from 'sequelize';

// The e-mail sent-log (docs/decisions/email.md): one row per buyer e-mail, unique per business key in a
// workspace environment, so queuing the same message twice records it once and the sending activity can see
// that it already went out. `body` holds the rendered parts, sealed (they carry download links and licence
// keys), until the message is sent or given up.
export async function up(qi: QueryInterface): Promise<void> {
  await qi.sequelize.query(`
    CREATE TABLE email_messages (
      id text PRIMARY KEY,
      account_id text NOT NULL REFERENCES accounts(id),
      environment text NOT NULL CHECK (environment IN ('test', 'live')),
      kind text NOT NULL,
      business_key text NOT NULL,
      message_id text NOT NULL,
      to_address text NOT NULL,
      subject text NOT NULL,
      body text,
      status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'sent', 'failed')),
      attempts integer NOT NULL DEFAULT 0 CHECK (attempts >= 0),
      last_error text,
      -- Set while an attempt is talking to the SMTP server: a second attempt before it passes does not send.
      sending_until timestamptz,
      sent_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (account_id, environment, business_key)
    );
    CREATE INDEX email_messages_status ON email_messages (account_id, environment, status, created_at);
  `);
}

export async function down(qi: QueryInterface): Promise<void> {
  await qi.sequelize.query('DROP TABLE email_messages');
}
