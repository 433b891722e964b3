import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/**
 * One place for SQL (docs/decisions/data-access.md): raw statements live in db/ query helpers; domain/ keeps the
 * rules and calls those helpers and Sequelize models, and activities/ call domain/. A raw SQL call in either folder
 * is refused here. Found in the syntax tree, so comments and strings that only mention a call do not count.
 */
const ROOT = path.resolve(__dirname, '../..');
const SCANNED = ['domain', 'activities'];

/** `x.query(…)` (Sequelize or pg) and `Sequelize.literal(…)`; `plainQuery(…)`, `plainQueryIn(…)` and `literal(…)` (an SQL fragment inside a model call). */
const RAW_SQL_METHODS = new Set(['query', 'literal']);
const RAW_SQL_FUNCTIONS = new Set(['plainQuery', 'plainQueryIn', 'literal']);

function rawSqlCallee(call: ts.CallExpression): string | undefined {
  const callee = call.expression;
  if (ts.isPropertyAccessExpression(callee) && RAW_SQL_METHODS.has(callee.name.text)) return callee.name.text;
  if (ts.isIdentifier(callee) && RAW_SQL_FUNCTIONS.has(callee.text)) return callee.text;
  return undefined;
}

/** The raw SQL calls of one source text, as `line: call`. */
function rawSqlCalls(fileName: string, text: string): string[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isCallExpression(node)) {
      const name = rawSqlCallee(node);
      if (name) found.push(`${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}: ${name}(`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

function sources(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const relative = path.join(dir, entry.name);
    if (entry.isDirectory()) return sources(relative);
    return entry.name.endsWith('.ts') ? [relative] : [];
  });
}

describe('raw SQL lives in db/', () => {
  it('the matcher finds every form of a raw SQL call, and nothing else', () => {
    const fixture = `
      import { literal, QueryTypes } from 'sequelize';
      async function f(sequelize, tx) {
        await sequelize.query('SELECT 1');
        await connectionOf(tx).query<{ n: number }>('SELECT 1', { type: QueryTypes.SELECT, transaction: tx });
        await plainQuery<Row>(sequelize, 'SELECT 1', []);
        await plainQueryIn(tx, 'SELECT 1', []);
        return Product.findAll({ attributes: [[literal('(SELECT 1)'), 'one']] });
      }`;
    expect(rawSqlCalls('fixture.ts', fixture)).toEqual(['4: query(', '5: query(', '6: plainQuery(', '7: plainQueryIn(', '8: literal(']);

    const allowed = `
      // sequelize.query('SELECT 1') in a comment, and in a string:
      const note = "plainQuery(sequelize, 'SELECT 1', [])";
      async function g(sequelize, tx, query) {
        await Product.findOne({ where: { id: 'x' }, lock: tx.LOCK.UPDATE, transaction: tx });
        await readProductRows(sequelize, productReadStatement(tenant, {}, 10));
        await plainTransaction(sequelize, (query) => moveStockRow(query, tenant, move));
        return req.params.query;
      }`;
    expect(rawSqlCalls('allowed.ts', allowed)).toEqual([]);
  });

  it.each(SCANNED)('%s/ sends no SQL of its own', (dir) => {
    const offenders = sources(dir).flatMap((file) => rawSqlCalls(file, readFileSync(path.join(ROOT, file), 'utf8')).map((call) => `${file}:${call}`));
    expect(offenders).toEqual([]);
  });
});
