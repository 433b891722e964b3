import { Marked } from 'marked';
import sanitizeHtml from 'sanitize-html';

/**
 * Merchant Markdown for buyers: rendered by marked (GitHub-flavoured), then cleaned by sanitize-html with an
 * allow-list, since Markdown passes raw HTML through. What survives: text formatting, headings, lists, quotes,
 * code, tables, images and links over http(s) (and mailto: for links); no scripts, styles, frames, forms,
 * event-handler or style attributes, and no `javascript:` or `data:` URLs. Links get rel="nofollow noopener".
 */

const markdown = new Marked({ gfm: true });

const SANITIZE: sanitizeHtml.IOptions = {
  allowedTags: [
    'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'p', 'br', 'hr', 'blockquote', 'pre', 'code', 'ul', 'ol', 'li',
    'strong', 'em', 'del', 's', 'sub', 'sup', 'a', 'img', 'table', 'thead', 'tbody', 'tr', 'th', 'td',
  ],
  allowedAttributes: {
    a: ['href', 'title', 'rel'],
    img: ['src', 'alt', 'title'],
    th: ['align'],
    td: ['align'],
    ol: ['start'],
    code: ['class'],
  },
  allowedClasses: { code: ['language-*'] },
  allowedSchemes: ['http', 'https', 'mailto'],
  allowedSchemesByTag: { img: ['http', 'https'] },
  allowProtocolRelative: false,
  disallowedTagsMode: 'discard',
  transformTags: { a: sanitizeHtml.simpleTransform('a', { rel: 'nofollow noopener' }) },
};

/** Markdown rendered to HTML that is safe to insert into a storefront page. */
export function renderMarkdown(source: string): string {
  return sanitizeHtml(markdown.parse(source, { async: false }), SANITIZE);
}

/**
 * The words of a Markdown text without its markup, whitespace collapsed: for excerpts and feeds. The rendered
 * HTML is stripped by the same sanitiser (which drops script and style contents with their tags); it escapes
 * exactly &, < and > in text, so undoing those three (ampersand last) gives the text back.
 */
export function markdownToText(source: string): string {
  const escaped = sanitizeHtml(markdown.parse(source, { async: false }), { allowedTags: [], allowedAttributes: {} });
  return escaped.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&').replace(/\s+/g, ' ').trim();
}

/** At most `max` characters (code points), cut at a word boundary with an ellipsis when shortened. */
export function truncateText(text: string, max: number): string {
  const chars = [...text];
  if (chars.length <= max) return text;
  const cut = chars.slice(0, max - 1).join('');
  const atWord = cut.replace(/\s+\S*$/, '');
  return `${atWord.length > max / 2 ? atWord : cut}…`;
}
