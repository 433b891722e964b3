import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/**
 * One vocabulary (docs/decisions/vocabulary.md): the spec's `fulfillment` and `canceled`. Product code and docs
 * never say `fulfilment`, and say `cancelled` only where it is a value: a string literal (payout and shipment
 * status, `Merchant cancelled`, messages), a property name of data keyed by status, `cancelledAt`, or in prose a
 * `code span`, a "quote" or a wire phrase. Applied migrations' SQL, the recorded patch id and the legacy activity
 * types (workflows/legacy-activity-types.ts, the vocabulary doc) keep the old spelling.
 */
const ROOT = path.resolve(__dirname, '../..');
const PRODUCT = ['api', 'domain', 'db', 'lib', 'activities', 'workflows', 'worker', 'scripts', 'bench'];
const LEGACY_FILES = new Set(['workflows/legacy-activity-types.ts', 'docs/decisions/vocabulary.md']);
const MIGRATION = /^db\/migrations\/00[^/]*\.ts$/;
const KEPT_ALWAYS = [/checkout-fulfilment-local-first/g];
const WIRE_VALUES_IN_PROSE = [/`[^`\n]*`/g, /"[^"\n]*"/g, /'cancelled'/g, /Merchant cancelled/g, /cancelledAt/g, /cancelled_at/g, /[\w-]+-cancelled(\.json)?\b/g, /(?:→|->)\s*cancelled\b|\bcancelled\//g];

/** Matches of `re` in `text` outside every match of `kept`. */
function outside(text: string, re: RegExp, kept: RegExp[]): string[] {
  const ranges = kept.flatMap((k) => [...text.matchAll(new RegExp(k.source, 'g'))].map((m) => [m.index, m.index + m[0].length] as const));
  return [...text.matchAll(new RegExp(re.source, 'gi'))].filter((m) => !ranges.some(([a, b]) => m.index < b && m.index + m[0].length > a)).map((m) => m[0]);
}

/** Prose (a comment or a doc): what it says of the two words that it should not. */
const proseOffences = (text: string) => [...outside(text, /fulfilment/, KEPT_ALWAYS), ...outside(text, /cancelled/, [...KEPT_ALWAYS, ...WIRE_VALUES_IN_PROSE])];

/** A name that is a key of data (object or type member, property access, destructured key), not a binding. */
function isPropertyName(node: ts.Identifier): boolean {
  const p = node.parent;
  if ((ts.isPropertyAccessExpression(p) || ts.isPropertyAssignment(p) || ts.isPropertySignature(p) || ts.isPropertyDeclaration(p) || ts.isMethodDeclaration(p) || ts.isMethodSignature(p) || ts.isEnumMember(p)) && p.name === node) return true;
  if (ts.isQualifiedName(p) && p.right === node) return true;
  return ts.isShorthandPropertyAssignment(p) || (ts.isBindingElement(p) && (p.propertyName === node || (!p.propertyName && ts.isObjectBindingPattern(p.parent))));
}

/** `line: text` for every misspelt identifier of a source; with `product`, its strings and comments as well. */
function codeOffences(file: string, text: string, product: boolean): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const at = (pos: number, what: string) => found.push(`${source.getLineAndCharacterOfPosition(pos).line + 1}: ${what}`);
  const comments = new Map<number, number>();
  // Every comment lies in the trivia at the start or after the end of some node.
  const visit = (node: ts.Node) => {
    for (const c of [...(ts.getLeadingCommentRanges(text, node.pos) ?? []), ...(ts.getLeadingCommentRanges(text, node.end) ?? [])]) comments.set(c.pos, c.end);
    if (ts.isIdentifier(node)) {
      if (/fulfilment/i.test(node.text)) at(node.getStart(), node.text);
      else if (/cancelled/i.test(node.text) && node.text !== 'cancelledAt' && !isPropertyName(node)) at(node.getStart(), node.text);
    } else if (product && (ts.isStringLiteralLike(node) || ts.isTemplateLiteralToken(node)) && !MIGRATION.test(file)) {
      for (const word of outside(node.getText(), /fulfilment/, KEPT_ALWAYS)) at(node.getStart(), word);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  if (product) for (const [start, end] of comments) for (const word of proseOffences(text.slice(start, end))) at(start, word);
  return found;
}

function files(dir: string, ext: RegExp): string[] {
  return readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const relative = path.join(dir, entry.name);
    if (entry.isDirectory()) return relative === 'test/replay/histories' ? [] : files(relative, ext);
    return ext.test(entry.name) ? [relative] : [];
  });
}

const misspelt = (file: string) => /fulfilment|cancelled/i.test(file);

describe("one vocabulary: the spec's fulfillment and canceled", () => {
  it('the matcher refuses the old spelling where it is a word, and keeps it where it is a value', () => {
    const refused = `
      // The fulfilment of a cancelled order.
      const cancelledCount = 1;
      function planFulfilment(cancelled: boolean) { return cancelled; }
      const label = 'Order fulfilment';`;
    expect(codeOffences('refused.ts', refused, true)).toEqual(['3: cancelledCount', '4: planFulfilment', '4: cancelled', '4: cancelled', '5: fulfilment', '2: fulfilment', '2: cancelled']);
    const kept = `
      // A \`cancelled\` payout stamps cancelledAt; the default reason is "Merchant cancelled"; pending → cancelled.
      const RANK = { cancelled: 5 };
      if (payout.status === 'cancelled') changes.cancelledAt = new Date();
      const patch = 'checkout-fulfilment-local-first';
      const { cancelled } = counts;`;
    expect(codeOffences('kept.ts', kept, true)).toEqual([]);
    expect(proseOffences('A payout `cancelled` (see payout-cancelled.json) is cancelled; fulfilment')).toEqual(['fulfilment', 'cancelled']);
  });

  it('product code: no file, name, string or comment says fulfilment, nor cancelled where it is not a value', () => {
    const sources = [...PRODUCT.flatMap((dir) => files(dir, /\.ts$/)), 'index.ts'];
    expect(sources.filter(misspelt)).toEqual([]);
    const offences = sources.filter((f) => !LEGACY_FILES.has(f)).flatMap((f) => codeOffences(f, readFileSync(path.join(ROOT, f), 'utf8'), true).map((o) => `${f}:${o}`));
    expect(offences).toEqual([]);
  });

  it('tests: no file or name says fulfilment or a non-value cancelled (recorded histories aside)', () => {
    const tests = files('test', /\.ts$/);
    expect(tests.filter(misspelt)).toEqual([]);
    expect(tests.flatMap((f) => codeOffences(f, readFileSync(path.join(ROOT, f), 'utf8'), false).map((o) => `${f}:${o}`))).toEqual([]);
  });

  it('docs say fulfillment, and cancelled only as a value', () => {
    const docs = [...files('docs', /\.md$/), 'README.md'].filter((f) => !LEGACY_FILES.has(f));
    expect(docs.filter(misspelt)).toEqual([]);
    expect(docs.flatMap((f) => proseOffences(readFileSync(path.join(ROOT, f), 'utf8')).map((o) => `${f}: ${o}`))).toEqual([]);
  });
});
