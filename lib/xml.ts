import { XMLBuilder } from 'fast-xml-parser';

/**
 * An XML document as fast-xml-parser's builder reads it: element names map to text, to nested elements, or to
 * arrays of either (repeated elements); `@_name` keys are attributes and `#text` is an element's text beside
 * its attributes. The builder escapes every text and attribute value.
 */
export type XmlNode = string | number | XmlElement | XmlNode[];
export interface XmlElement {
  [name: string]: XmlNode | undefined;
}

// Characters XML 1.0 cannot carry at all, even escaped (control characters, lone surrogates, U+FFFE/U+FFFF).
const NOT_XML = /[^\u0009\u000A\u000D\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

const builder = new XMLBuilder({ ignoreAttributes: false, attributeNamePrefix: '@_', textNodeName: '#text', format: true });

function clean(node: XmlNode): XmlNode {
  if (typeof node === 'string') return node.replace(NOT_XML, '');
  if (typeof node === 'number') return node;
  if (Array.isArray(node)) return node.map(clean);
  // Undefined children are left out: an optional element is simply absent.
  return Object.fromEntries(Object.entries(node).flatMap(([name, child]) => (child === undefined ? [] : [[name, clean(child)]])));
}

/** A UTF-8 XML document with `root` as its single top element. */
export function buildXml(root: XmlElement): string {
  return builder.build({ '?xml': { '@_version': '1.0', '@_encoding': 'UTF-8' }, ...(clean(root) as XmlElement) }) as string;
}
