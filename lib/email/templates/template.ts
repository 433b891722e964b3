/**
 * One kind of e-mail as Handlebars sources. `subject` and `text` are rendered without HTML escaping (they are
 * not HTML); `html` with it, so every `{{value}}` is escaped and only `{{{body}}}` in the layout is raw.
 */
export interface EmailTemplate {
  subject: string;
  html: string;
  text: string;
}
