/**
 * README.md's quickstart, run as written against a real `npm start` (one start for the file: a fresh DATA_DIR and
 * free ports, nothing shared with the suite's PostgreSQL or Temporal): each step's `sh` blocks are taken from the
 * README, their placeholders filled from npm start's banner and from what the steps before answered (as a reader
 * does), run with bash, and the step's result is checked. A command changed in the README runs changed here, and a
 * step that stops working fails this test, so the quickstart cannot drift from the service.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { freePort } from '../../scripts/lib/free-port';
import { waitFor } from '../helpers/wait';

jest.setTimeout(900_000);

const ROOT = path.resolve(__dirname, '..', '..');
const README = readFileSync(path.join(ROOT, 'README.md'), 'utf8');

interface Step {
  number: number;
  text: string;
  blocks: { lang: string; code: string }[];
}

/** The numbered steps of the Quickstart section, each with its fenced blocks (list indentation removed). */
function quickstartSteps(markdown: string): Step[] {
  const section = /^## Quickstart[^\n]*\n([\s\S]*?)(?=^## )/m.exec(markdown)?.[1];
  if (!section) throw new Error('README.md has no "## Quickstart" section');
  const starts = [...section.matchAll(/^(\d+)\. /gm)];
  return starts.map((match, i) => {
    const text = section.slice(match.index, starts[i + 1]?.index ?? section.length);
    const blocks = [...text.matchAll(/^( *)```(\w+)\n([\s\S]*?)^\1```$/gm)].map((b) => ({
      lang: b[2]!,
      code: b[3]!
        .split('\n')
        .map((line) => line.slice(b[1]!.length))
        .join('\n')
        .trim(),
    }));
    return { number: Number(match[1]), text, blocks };
  });
}

const steps = quickstartSteps(README);
const shBlocks = (n: number) => steps.find((s) => s.number === n)!.blocks.filter((b) => b.lang === 'sh').map((b) => b.code);

let dataDir: string;
let workDir: string;
let env: Record<string, string>;
let ports: Record<'api' | 'mailpitUi' | 'temporal' | 'temporalUi', number>;
let stack: ChildProcess | undefined;
let stackOutput = '';
let listener: ChildProcess | undefined;
let listenerOut = '';
/** Placeholder → value, as the reader fills them in: from the banner first, then from each step's answer. */
const values = new Map<string, string>();

function fill(code: string): string {
  let filled = code;
  for (const [placeholder, value] of values) filled = filled.replaceAll(placeholder, value);
  filled = filled.replaceAll('http://localhost:3000', `http://localhost:${ports.api}`).replaceAll('http://localhost:8025', `http://localhost:${ports.mailpitUi}`);
  if (filled.includes('…')) throw new Error(`a placeholder of this command has no value yet:\n${filled}`);
  return filled;
}

/** Runs a block as written (filled in) with bash; npm commands from the clone, the rest in a scratch directory. */
function run(code: string): string {
  const filled = fill(code);
  const result = spawnSync('bash', ['-euo', 'pipefail', '-c', filled], { cwd: filled.startsWith('npm ') ? ROOT : workDir, env, encoding: 'utf8', timeout: 60_000 });
  if (result.status !== 0) throw new Error(`\`${filled}\` exited with ${result.status}\n${result.stdout}\n${result.stderr}`);
  return result.stdout;
}

/** What the reader reads off an answer and types into the next step. */
function learn(output: string): void {
  const take = (pattern: RegExp, placeholder: string) => {
    const found = pattern.exec(output)?.[1];
    if (found) values.set(placeholder, found);
  };
  take(/"checkoutSessionId":"(cs_[0-9A-Z]{26})"/, 'cs_…');
  take(/"downloadUrl":"(http[^"]+)"/, 'http://localhost:3000/api/v1/storefront/public/downloads/…');
  take(/"licenseKey":"(STARTE-[A-Z0-9-]+)"/, 'STARTE-…');
}

const json = (output: string) => JSON.parse(output) as { data: Record<string, unknown> & { status?: string } };

const until = <T>(probe: () => Promise<T | undefined | false> | T | undefined | false, what: string, timeoutMs = 90_000) =>
  waitFor(async () => probe(), {
    timeoutMs,
    intervalMs: 250,
    describe: () => `${what}\n--- npm start (tail) ---\n${stackOutput.slice(-4000)}\n--- webhooks listen ---\n${listenerOut}`,
  });

async function get(url: string, key?: string): Promise<{ status: number; body: string }> {
  const response = await fetch(url, { headers: key ? { authorization: `Bearer ${key}` } : {} });
  return { status: response.status, body: await response.text() };
}

function killGroup(group: number): void {
  try {
    process.kill(group, 'SIGKILL');
  } catch {
    // already gone
  }
}

/** Ctrl-C as a terminal sends it: SIGINT to the process group. */
async function interrupt(child: ChildProcess | undefined): Promise<void> {
  if (!child?.pid || child.exitCode !== null || child.signalCode !== null) return;
  const group = -child.pid;
  const exited = new Promise((resolve) => child.once('close', resolve));
  process.kill(group, 'SIGINT');
  const timer = setTimeout(() => killGroup(group), 90_000);
  await exited;
  clearTimeout(timer);
}

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'readme-stack-'));
  workDir = mkdtempSync(path.join(tmpdir(), 'readme-work-'));
  ports = { api: await freePort(), mailpitUi: await freePort(), temporal: await freePort(), temporalUi: await freePort() };
  // Only what a new user's shell has, plus ports of its own: nothing of the suite's database, Temporal or keys.
  env = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '',
    DATA_DIR: dataDir,
    PORT: String(ports.api),
    MAILPIT_UI_PORT: String(ports.mailpitUi),
    TEMPORAL_DEV_PORT: String(ports.temporal),
    TEMPORAL_UI_PORT: String(ports.temporalUi),
    EMBEDDED_POSTGRES_PORT: String(await freePort()),
    MAILPIT_SMTP_PORT: String(await freePort()),
    PAYMENT_SANDBOX_PORT: String(await freePort()),
    METRICS_PORT: String(await freePort()),
    WORKER_HEALTH_PORT: String(await freePort()),
  };
});

afterAll(async () => {
  await interrupt(listener).catch(() => undefined);
  await interrupt(stack);
  // npm may exit at the Ctrl-C before the stack it ran has stopped PostgreSQL, Temporal and Mailpit.
  if (stack) await until(() => stackOutput.includes('[start] stopped'), 'the stack to stop').catch(() => undefined);
  rmSync(workDir, { recursive: true, force: true });
  rmSync(dataDir, { recursive: true, force: true });
});

describe('README quickstart', () => {
  it('has at most ten steps, and the README at most 250 lines', () => {
    expect(steps.map((s) => s.number)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(README.split('\n').length).toBeLessThanOrEqual(250);
  });

  it('runs from npm start to the workflow in the Temporal UI, as written', async () => {
    // 1. The test runs `npm start` itself (the install is this clone's), in a process group of its own.
    expect(shBlocks(1)).toEqual(['npm install && npm start']);
    stack = spawn('npm', ['start'], { cwd: ROOT, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    stack.stdout!.on('data', (c: Buffer) => (stackOutput += c.toString('utf8')));
    stack.stderr!.on('data', (c: Buffer) => (stackOutput += c.toString('utf8')));
    await until(() => stack!.exitCode === null && stackOutput.includes('Commerce stack is up') && /Buy-now link {3}http/.test(stackOutput), 'the banner', 600_000);
    values.set('sk_test_…', /^ {4}secret {7}(sk_test_\S+)$/m.exec(stackOutput)![1]!);
    values.set('pk_test_…', /^ {4}publishable {2}(pk_test_\S+)$/m.exec(stackOutput)![1]!);
    // The banner's buy-now link is a hosted checkout page that opens.
    const buyNow = /Buy-now link {3}(http\S+)/.exec(stackOutput)![1]!;
    expect((await get(buyNow)).status).toBe(200);

    // 2. The listener, in its "second terminal".
    const [listen] = shBlocks(2);
    expect(listen).toBe('npm run cli -- webhooks listen');
    listener = spawn('bash', ['-c', fill(listen!)], { cwd: ROOT, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    listener.stdout!.on('data', (c: Buffer) => (listenerOut += c.toString('utf8')));
    listener.stderr!.on('data', (c: Buffer) => (listenerOut += c.toString('utf8')));
    await until(() => /^Ready: https:\/\/127\.0\.0\.1:\d+\/webhooks receives every event of Demo Store/m.test(listenerOut), 'the listener');

    // 3. The product with a file.
    const product = json(run(shBlocks(3)[0]!)).data as { files: { fileName: string }[]; licenseEnabled: boolean; type: string };
    expect(product).toMatchObject({ type: 'digital', licenseEnabled: true, files: [expect.objectContaining({ fileName: 'starter-guide.md' })] });

    // 4. Buy now.
    const bought = run(shBlocks(4)[0]!);
    learn(bought);
    expect(json(bought).data.hostedUrl).toBe(`http://localhost:${ports.api}/checkout/${values.get('cs_…')}`);
    expect((await get(json(bought).data.hostedUrl as string)).body).toContain('The Starter Guide');

    // 5. Pay (the hosted page's form does the same POST).
    expect(json(run(shBlocks(5)[0]!)).data.status).toBe('pending_review');

    // 6. Confirm.
    expect(json(run(shBlocks(6)[0]!)).data.status).toBe('completed');

    // 7. The delivery, once fulfillment (a workflow) has written it, as the reader sees it a moment later.
    const sk = values.get('sk_test_…')!;
    await until(async () => /"licenseKey":"STARTE-/.test((await get(`http://localhost:${ports.api}/api/v1/storefront/deliveries`, sk)).body), 'the delivery');
    const [deliveries, downloadAndCheck] = shBlocks(7);
    learn(run(deliveries!));
    const checked = run(downloadAndCheck!);
    expect(readFileSync(path.join(workDir, 'starter-guide.md'), 'utf8')).toContain('# The Starter Guide');
    expect(json(checked).data).toMatchObject({ valid: true });

    // 8. The webhooks, printed by the listener.
    for (const type of ['checkout.completed', 'product.purchased']) {
      await until(() => new RegExp(`^\\S+Z {2}${type.replace('.', '\\.')} {2}evt_[0-9A-Z]{26} {2}signature verified$`, 'm').test(listenerOut), `the ${type} line`);
    }
    expect(steps[7]!.blocks.map((b) => b.lang)).toEqual(['text']);

    // 9. The receipt in Mailpit.
    await until(async () => /"total":[1-9]/i.test((await get(`http://localhost:${ports.mailpitUi}/api/v1/search?query=to:buyer@example.com`)).body), 'the receipt');
    const receipt = JSON.parse(run(shBlocks(9)[0]!)) as { messages: { To: { Address: string }[]; Subject: string }[] };
    expect(receipt.messages[0]!.To[0]!.Address).toBe('buyer@example.com');
    expect(receipt.messages[0]!.Subject).toMatch(/Starter Guide|receipt|order/i);

    // 10. The session's workflow, in the Temporal server the UI shows.
    expect(steps[9]!.text).toContain('http://localhost:8233');
    expect((await get(`http://localhost:${ports.temporalUi}/`)).status).toBe(200);
    const connection = await Connection.connect({ address: `127.0.0.1:${ports.temporal}` });
    try {
      const description = await new Client({ connection }).workflow.getHandle(`checkout-session:${values.get('cs_…')}`).describe();
      expect(description.type).toBe('checkoutSession');
    } finally {
      await connection.close();
    }

    // Ctrl-C in the second terminal removes the temporary endpoint.
    await interrupt(listener);
    expect(listenerOut).toMatch(/Stopped listening: endpoint whe_\w+ removed from acc_\w+ \(test\); \d+ event\(s\) received\./);
    expect(existsSync(path.join(dataDir, 'local-ca', 'ca.pem'))).toBe(true);
  });
});
