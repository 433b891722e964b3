import { createUserService } from '../../domain/users/service';
import type { Sequelize } from 'sequelize';

export interface PageResult {
  status: number;
  headers: Headers;
  text: string;
  /** Where a redirect points, relative to the server. */
  location: string | null;
}

/** A browser as far as the dashboard can tell: a cookie jar, forms posted as `application/x-www-form-urlencoded`. */
export class DashboardClient {
  readonly cookies = new Map<string, string>();

  constructor(private readonly baseUrl: string) {}

  async request(method: string, path: string, form?: Record<string, string>, headers: Record<string, string> = {}): Promise<PageResult> {
    const cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    const response = await fetch(`${this.baseUrl}${path}`, {
      method,
      redirect: 'manual',
      headers: {
        ...(cookie ? { cookie } : {}),
        ...(form ? { 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'same-origin' } : {}),
        ...headers,
      },
      body: form ? new URLSearchParams(form).toString() : undefined,
    });
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const index = pair!.indexOf('=');
      const name = pair!.slice(0, index);
      const value = pair!.slice(index + 1);
      if (value === '' || /Max-Age=0(;|$)/.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return { status: response.status, headers: response.headers, text: await response.text(), location: response.headers.get('location') };
  }

  get(path: string): Promise<PageResult> {
    return this.request('GET', path);
  }

  /** Posts a form with the CSRF token the page at `from` carries (as a browser submitting that page's form would). */
  async post(path: string, form: Record<string, string> = {}, from = '/dashboard'): Promise<PageResult> {
    const page = await this.get(from);
    return this.request('POST', path, { _csrf: csrfOf(page.text), ...form });
  }

  /** Signs in through the form; signed in already (the form redirects), with the form token an open tab of it holds. */
  async signIn(email: string, password: string): Promise<PageResult> {
    const login = await this.get('/dashboard/login');
    const token = login.status === 200 ? csrfOf(login.text) : this.cookies.get('dashboard_login')!;
    return this.request('POST', '/dashboard/login', { _csrf: token, email, password });
  }
}

export function csrfOf(html: string): string {
  const match = /name="_csrf" value="([^"]+)"/.exec(html);
  if (!match) throw new Error(`no CSRF token in the page:\n${html.slice(0, 2000)}`);
  return match[1]!;
}

let counter = 0;

/** A user with a known password in `workspace` (slug or id). */
export async function createDashboardUser(sequelize: Sequelize, workspace: string, role: 'owner' | 'member' = 'owner'): Promise<{ userId: string; email: string; password: string }> {
  counter += 1;
  const email = `user${counter}.${Date.now().toString(36)}${process.pid.toString(36)}@example.com`;
  const password = `pass-${counter}-correct-horse`;
  const user = await createUserService({ sequelize }).create({ email, password, workspace, role });
  return { userId: user.userId, email, password };
}
