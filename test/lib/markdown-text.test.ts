import { markdownToText, truncateText } from '../../lib/markdown';

// The plain text of excerpts and feed descriptions (docs/decisions/storefront.md).

describe('truncateText', () => {
  it('leaves a text of at most max characters as it is', () => {
    expect(truncateText('short', 5)).toBe('short');
  });

  it('cuts at a word boundary with an ellipsis, the ellipsis counted within max', () => {
    expect(truncateText('hello world foo', 12)).toBe('hello world…');
    expect(truncateText('one two three', 9)).toBe('one two…');
  });

  it('cuts inside the word when the last boundary would keep half of max or less', () => {
    expect(truncateText('abcdefghijklmnop', 10)).toBe('abcdefghi…');
    expect(truncateText('a bcdefghijklmnop', 10)).toBe('a bcdefgh…');
  });

  it('counts code points, so it never splits a character in two', () => {
    expect(truncateText('😀😀😀😀😀', 4)).toBe('😀😀😀…');
  });
});

describe('markdownToText', () => {
  it('keeps the words without markup, script contents dropped, entities given back, whitespace collapsed', () => {
    expect(markdownToText('# Title\n\n**Bold** & <script>alert(1)</script> a < b\n\n- one\n- two')).toBe('Title Bold & a < b one two');
  });
});
