import { z } from 'zod';
import { multiLine, singleLine, stringMap } from '../../lib/text';

// The published OpenAPI pattern and the server's check must agree, or a client generator and the API disagree.
const SAMPLES = ['', ' ', 'plain', '  padded \n', 'a\u0000b', 'a\nb', 'a\r\nb', 'a\tb', '\tlead', 'a\u0007', 'a\u007F', 'a\u0085', 'a\u202Eb', 'a\u2067b', 'a\u200Fb', 'a\u2028b', 'Café 😀', '\u0645\u200F', '\uFEFF', 'a\u000Bb'];

const cases: Array<[string, z.ZodType]> = [
  ['singleLine trimmed, required', singleLine({ min: 1, max: 50 })],
  ['singleLine as sent', singleLine({ max: 50, trim: false })],
  ['multiLine as sent', multiLine({ max: 50 })],
  ['multiLine trimmed, required', multiLine({ min: 1, max: 50, trim: true })],
];

describe('lib/text', () => {
  it.each(cases)('%s: the OpenAPI pattern accepts exactly what the check accepts', (_name, schema) => {
    const pattern = new RegExp((z.globalRegistry.get(schema) as { pattern: string }).pattern, 'u');
    for (const sample of SAMPLES) expect([sample, pattern.test(sample)]).toEqual([sample, schema.safeParse(sample).success]);
  });

  it('refuses NUL everywhere, line breaks and bidi controls only in single-line text', () => {
    expect(multiLine({ max: 9 }).safeParse('a\r\n\tb\u202E').success).toBe(true);
    expect(multiLine({ max: 9 }).safeParse('a\u0000').success).toBe(false);
    expect(singleLine({ max: 9 }).safeParse('a\u202Eb').success).toBe(false);
  });

  it('refuses reserved map keys, __proto__ included (which a record would drop)', () => {
    const map = stringMap({ keyMax: 10, maxKeys: 2, value: z.string() });
    expect(map.safeParse(JSON.parse('{"__proto__":"x"}')).success).toBe(false);
    expect(map.safeParse({ constructor: 'x' }).success).toBe(false);
    expect(map.safeParse({ a: 'x', b: 'y', c: 'z' }).success).toBe(false);
    expect(map.safeParse({ a: 'x' })).toEqual({ success: true, data: { a: 'x' } });
  });
});
