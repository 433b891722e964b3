import { Membership, User } from '../../db/models';
import { verifyPassword } from '../../domain/users/passwords';
import { runCli as runCliIn, singleJson as json, spawnCli, type CliResult } from '../helpers/cli';
import { createTestContext, type TestContext } from '../helpers/context';

let counter = 0;
const unique = () => `u${Date.now().toString(36)}${process.pid.toString(36)}${(counter += 1)}`;

let ctx: TestContext;
const runCli = (args: string[], stdin = ''): Promise<CliResult> => runCliIn(ctx.sequelize, args, { stdin });
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(() => ctx.close());

describe('npm run cli: dashboard people', () => {
  it('workspace create --owner-email makes a new user the owner, with a generated password shown once', async () => {
    const slug = unique();
    const email = `Owner.${slug}@Example.com`;
    const created = json(await runCli(['workspace', 'create', '--name', 'Owned', '--slug', slug, '--owner-email', email]));
    const owner = created.owner as { userId: string; email: string; password: string };
    expect(owner).toEqual({ userId: expect.stringMatching(/^usr_/), email, password: expect.stringMatching(/^[\w-]{24}$/) });
    const user = (await User.findByPk(owner.userId))!;
    expect(user.passwordHash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    expect(user.passwordHash).not.toContain(owner.password);
    await expect(verifyPassword(user.passwordHash, owner.password)).resolves.toBe(true);
    expect(await Membership.findAll({ where: { accountId: created.accountId as string }, raw: true })).toEqual([
      expect.objectContaining({ userId: owner.userId, role: 'owner' }),
    ]);

    // The same person owning a second workspace is the same user, and no password is printed for it.
    const second = json(await runCli(['workspace', 'create', '--name', 'Owned 2', '--slug', unique(), '--owner-email', email.toLowerCase()]));
    expect(second.owner).toEqual({ userId: owner.userId, email });
  });

  it('user create reads the password from standard input, and refuses a second owner and a taken e-mail (any case)', async () => {
    const slug = unique();
    json(await runCli(['workspace', 'create', '--name', 'Team', '--slug', slug]));
    const email = `member.${slug}@example.com`;
    // Piped into a process of its own, as a shell pipe would.
    const member = json(await spawnCli(['user', 'create', '--email', email, '--workspace', slug, '--role', 'member'], { stdin: 'correct horse battery\n' }));
    expect(member).toEqual({ userId: expect.stringMatching(/^usr_/), email, accountId: expect.stringMatching(/^acc_/), role: 'member' });
    const user = (await User.findByPk(member.userId as string))!;
    await expect(verifyPassword(user.passwordHash, 'correct horse battery')).resolves.toBe(true);

    const owner = json(await runCli(['user', 'create', '--email', `owner.${slug}@example.com`, '--workspace', slug, '--role', 'owner']));
    expect(owner.password).toEqual(expect.any(String));

    const secondOwner = await runCli(['user', 'create', '--email', `other.${slug}@example.com`, '--workspace', slug, '--role', 'owner']);
    expect(secondOwner).toMatchObject({ code: 1, stdout: '' });
    expect(secondOwner.stderr).toMatch(/has an owner already/);
    expect(await User.count({ where: { email: `other.${slug}@example.com` } })).toBe(0);

    const taken = await runCli(['user', 'create', '--email', email.toUpperCase(), '--workspace', slug, '--role', 'member']);
    expect(taken).toMatchObject({ code: 1, stdout: '' });
    expect(taken.stderr).toMatch(/exists/);

    const short = await runCli(['user', 'create', '--email', `short.${slug}@example.com`, '--workspace', slug, '--role', 'member'], 'short');
    expect(short.code).toBe(1);
    expect(short.stderr).toMatch(/password must be 10 to 200 characters/);
  });

  it('user add-member adds an existing user to another workspace, once', async () => {
    const [a, b] = [unique(), unique()];
    const first = json(await runCli(['workspace', 'create', '--name', 'A', '--slug', a]));
    const second = json(await runCli(['workspace', 'create', '--name', 'B', '--slug', b]));
    const email = `both.${a}@example.com`;
    const user = json(await runCli(['user', 'create', '--email', email, '--workspace', a, '--role', 'member']));
    const added = json(await runCli(['user', 'add-member', '--email', email, '--workspace', second.accountId as string]));
    expect(added).toEqual({ userId: user.userId, email, accountId: second.accountId, role: 'member' });
    expect((await Membership.findAll({ where: { userId: user.userId as string } })).map((m) => m.accountId).sort()).toEqual([first.accountId, second.accountId].sort());

    const again = await runCli(['user', 'add-member', '--email', email, '--workspace', b]);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/already a member/);
    const nobody = await runCli(['user', 'add-member', '--email', `nobody.${a}@example.com`, '--workspace', b]);
    expect(nobody.code).toBe(1);
    const badRole = await runCli(['user', 'create', '--email', email, '--workspace', b, '--role', 'admin']);
    expect(badRole.code).toBe(2);
  });
});
