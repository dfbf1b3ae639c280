// The part of @mixmark-io/domino (the HTML parser turndown used) that parse-html.ts calls. The
// package's own typings declare a module named "domino" and none of these.
declare module "@mixmark-io/domino" {
  /** 6: a node was inserted (`target` its parent, `node` the node); 5: a node was moved (`target`). */
  interface Mutation {
    type: number;
    target: unknown;
    node?: unknown;
  }
  interface ParsedDocument {
    /** Called for every change of the document, the parser's own insertions included. */
    _setMutationHandler(handler: ((mutation: Mutation) => void) | null): void;
    getElementById(id: string): unknown;
    /** The document template contents are parsed into (the same for every template, nested ones too). */
    readonly _templateDoc: ParsedDocument;
  }
  interface IncrementalHtmlParser {
    /** The document being built, available before parsing starts. */
    document(): ParsedDocument;
    /** The last (here the only) chunk of input; parsing happens in process(). */
    end(html: string): void;
    /** Parses until the input is done (false) or until shouldPause answers true, at a token's end (true). */
    process(shouldPause: () => boolean): boolean;
  }
  const domino: { createIncrementalHTMLParser(): IncrementalHtmlParser };
  export default domino;
}
