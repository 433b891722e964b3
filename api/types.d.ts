import type { AuthContext } from '../domain/auth-context';
import type { DashboardIdentity } from '../domain/users';

declare global {
  namespace Express {
    interface Request {
      requestId: string;
      auth?: AuthContext;
      /** The signed-in dashboard user under `/dashboard` (api/dashboard/session.ts); null when signed out. */
      dashboard?: DashboardIdentity | null;
    }
  }
}

export {};
