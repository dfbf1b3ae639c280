/**
 * The part of domino's DOM that the conversion reads. Only `firstChild`/`nextSibling`-style links are
 * used: domino keeps children as a linked list until something asks for `childNodes` or `children`,
 * and from then on removing a child costs the whole sibling list.
 */
export interface DomNode {
  readonly nodeType: number;
  readonly nodeName: string;
  readonly parentNode: DomNode | null;
  readonly firstChild: DomNode | null;
  readonly lastChild: DomNode | null;
  readonly nextSibling: DomNode | null;
  readonly previousSibling: DomNode | null;
  removeChild(child: DomNode): DomNode;
}

export interface DomText extends DomNode {
  data: string;
}

export interface DomElement extends DomNode {
  readonly localName: string;
  readonly namespaceURI: string | null;
  getAttribute(name: string): string | null;
}

export function isText(node: DomNode): node is DomText {
  return node.nodeType === 3;
}

export function isElement(node: DomNode): node is DomElement {
  return node.nodeType === 1;
}

export const HTML_NAMESPACE = "http://www.w3.org/1999/xhtml";

// turndown's lists (by nodeName: upper case for HTML elements, as written for the others).
export const BLOCK = new Set(
  "ADDRESS ARTICLE ASIDE AUDIO BLOCKQUOTE BODY CANVAS CENTER DD DIR DIV DL DT FIELDSET FIGCAPTION FIGURE FOOTER FORM FRAMESET H1 H2 H3 H4 H5 H6 HEADER HGROUP HR HTML ISINDEX LI MAIN MENU NAV NOFRAMES NOSCRIPT OL OUTPUT P PRE SECTION TABLE TBODY TD TFOOT TH THEAD TR UL".split(
    " ",
  ),
);
export const VOID = new Set("AREA BASE BR COL COMMAND EMBED HR IMG INPUT KEYGEN LINK META PARAM SOURCE TRACK WBR".split(" "));
export const MEANINGFUL_WHEN_BLANK = new Set("A TABLE THEAD TBODY TFOOT TH TD IFRAME SCRIPT AUDIO VIDEO".split(" "));
