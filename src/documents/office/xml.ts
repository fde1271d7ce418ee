/**
 * @module documents/office/xml
 * A small XML reader for office formats, and the bounds the converters apply to what a crafted file declares
 * (nesting, levels, counts). Element names keep their prefixes (`w:p`); a part that declares a known namespace under
 * another prefix (`ns0:p`) has its names read under the usual one ({@link CONVENTIONAL_PREFIX}).
 *
 * Why not a DOM library: a DOCX part may inflate to 32 MiB of XML. linkedom took 2.0 s to parse 30 MiB and its
 * tree held 535 MB; this reader takes 0.5 s and 242 MB (the whole conversion of that 107 KB DOCX: 2.9 s and a
 * 1.41 GB peak before, 1.4 s and 1.03 GB now). The converters only walk elements, read attributes and text, so
 * this reader keeps exactly that: an element is a name, its attributes and its children (elements and
 * strings). No DTD is read: entity declarations are ignored (no entity expansion bombs), and only the five XML
 * entities and character references are decoded. It is lenient as a browser's XML parser in recovery is not: an
 * unmatched end tag closes up to its element, and elements left open at the end are closed.
 */
import { DocumentCorruptError } from "../errors.ts";

/**
 * Deepest element nesting the office converters descend into. Real documents nest a few tens of levels; the
 * walks recurse, and 50k nested `<w:ins>` or `<text:span>` overflowed the stack (a RangeError answered 500).
 */
export const MAX_XML_DEPTH = 200;

/** Deepest list nesting kept (`w:ilvl` is 0–8 in WordprocessingML); deeper items stay at this depth. */
export const MAX_LIST_DEPTH = 8;

/** One element: its name, attributes and children (text as strings). */
export class XmlElement {
  readonly childNodes: (XmlElement | string)[] = [];

  constructor(
    readonly tagName: string,
    private readonly attributes: Map<string, string> | undefined,
  ) {}

  /** The attribute's (entity-decoded) value, or null. */
  getAttribute(name: string): string | null {
    return this.attributes?.get(name) ?? null;
  }

  /** All text inside, in document order (iterative: deep nesting cannot overflow the stack). */
  get textContent(): string {
    let out = "";
    const stack: (XmlElement | string)[] = [this];
    while (stack.length > 0) {
      const node = stack.pop()!;
      if (typeof node === "string") out += node;
      else for (let i = node.childNodes.length - 1; i >= 0; i--) stack.push(node.childNodes[i]!);
    }
    return out;
  }
}

const PREDEFINED: Record<string, string> = { lt: "<", gt: ">", amp: "&", quot: '"', apos: "'" };
const ENTITY = /&(?:#x([0-9a-fA-F]{1,6})|#(\d{1,7})|(lt|gt|amp|quot|apos));/g;

/** Text with the five XML entities and character references decoded (no others exist without a DTD). */
export function decode(text: string): string {
  if (!text.includes("&")) return text;
  return text.replace(ENTITY, (m, hex: string | undefined, dec: string | undefined, name: string | undefined) => {
    if (name) return PREDEFINED[name]!;
    const code = hex ? parseInt(hex, 16) : Number(dec);
    return code > 0 && code <= 0x10ffff && !(code >= 0xd800 && code <= 0xdfff) ? String.fromCodePoint(code) : m;
  });
}

/**
 * The namespaces the office readers look elements up in, by the prefix they look them up with. Names are compared
 * with their prefixes (`w:p`), and nearly every writer uses these; one that declares its own (Python's ElementTree
 * writes `ns0:document`, `ns0:Relationships`) has its names read as if it used these. Only a document that declares
 * a known namespace under another prefix pays for the renaming, about nothing (a name renamed is remembered, and the
 * attributes are renamed as they are read); the others pay one character test per attribute. (Renaming every name
 * afresh and rebuilding each element's attributes made such a document 2.9 times as slow to parse: 846 ms where the
 * same with `w:` took 292.)
 */
const CONVENTIONAL_PREFIX = new Map<string, string>([
  ["http://schemas.openxmlformats.org/wordprocessingml/2006/main", "w"],
  ["http://purl.oclc.org/ooxml/wordprocessingml/main", "w"],
  ["http://schemas.openxmlformats.org/officeDocument/2006/relationships", "r"],
  ["http://purl.oclc.org/ooxml/officeDocument/relationships", "r"],
  ["http://schemas.openxmlformats.org/officeDocument/2006/math", "m"],
  ["http://schemas.openxmlformats.org/markup-compatibility/2006", "mc"],
  ["http://schemas.openxmlformats.org/package/2006/relationships", ""],
  ["http://schemas.openxmlformats.org/package/2006/content-types", ""],
  ["http://schemas.openxmlformats.org/package/2006/metadata/core-properties", "cp"],
  ["http://purl.org/dc/elements/1.1/", "dc"],
]);

/** Whether declaration `xmlns[:prefix]="uri"` gives a known namespace another prefix than its conventional one. */
function unconventional(attribute: string, uri: string): boolean {
  const conventional = CONVENTIONAL_PREFIX.get(uri);
  return conventional !== undefined && attribute.slice(6) !== conventional;
}

/**
 * Prefixes a document declares for known namespaces → the conventional ones ("" for a default namespace). For the
 * whole document from the declaration on, not its element's scope: a document redeclaring a prefix for another
 * namespace inside is not worth a scope stack on every element of every document.
 */
class PrefixRenames {
  private readonly prefixes = new Map<string, string>();
  /** The conventional prefix of the default namespace, when the document's default is a known, prefixed one. */
  private defaultPrefix?: string;
  /**
   * Names renamed lately, in slots found by a few of their characters (elements in the lower half, attributes in the
   * upper), each compared character by character. A document uses a few hundred names. Not a Map: a name is a new
   * substring of the part each time, and hashing it cost as much as the renaming saved (1.5 times the parse).
   */
  private readonly written: (string | undefined)[] = new Array(NAME_SLOTS);
  private readonly read: string[] = new Array(NAME_SLOTS);

  /** Takes declaration `xmlns[:prefix]="uri"` of a known namespace. */
  declare(attribute: string, uri: string): void {
    const conventional = CONVENTIONAL_PREFIX.get(uri)!;
    const prefix = attribute.slice(6);
    if (prefix) this.prefixes.set(prefix, conventional);
    else this.defaultPrefix = conventional || undefined;
    this.written.fill(undefined);
  }

  /** An element's (or, `attribute`, an attribute's: they take no default namespace) name as conventionally prefixed. */
  rename(name: string, attribute: boolean): string {
    const n = name.length;
    const slot = (((n * 61 + name.charCodeAt(n - 1) * 31 + name.charCodeAt(n >> 1) * 7 + name.charCodeAt(n >> 2)) & (NAME_SLOTS / 2 - 1)) | (attribute ? NAME_SLOTS / 2 : 0)) >>> 0;
    const seen = this.written[slot];
    if (seen !== undefined && seen.length === n) {
      let i = 0;
      while (i < n && seen.charCodeAt(i) === name.charCodeAt(i)) i++;
      if (i === n) return this.read[slot]!;
    }
    const colon = name.indexOf(":");
    const to = colon < 0 ? (attribute ? undefined : this.defaultPrefix) : this.prefixes.get(name.slice(0, colon));
    const out = to === undefined ? name : colon < 0 ? `${to}:${name}` : to ? to + name.slice(colon) : name.slice(colon + 1);
    this.written[slot] = name;
    this.read[slot] = out;
    return out;
  }
}

/** Slots of a document's renamed names (a power of two). */
const NAME_SLOTS = 1024;

const NAME = /[^\s/>]+/y;
const ATTRIBUTE = /\s*([^\s=/>]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s/>]+)))?/y;

/**
 * The attributes of the start tag whose attributes begin at `at`, renamed by `renames`: read again for an element
 * that declares a namespace, once its declarations are all known (those before a declaration were read without it).
 */
function renamedAttributes(xml: string, at: number, renames: PrefixRenames): Map<string, string> | undefined {
  let attributes: Map<string, string> | undefined;
  for (;;) {
    ATTRIBUTE.lastIndex = at;
    const m = ATTRIBUTE.exec(xml);
    if (!m || m[0].length === 0) return attributes;
    (attributes ??= new Map()).set(renames.rename(m[1]!, true), decode(m[2] ?? m[3] ?? m[4] ?? ""));
    at = ATTRIBUTE.lastIndex;
  }
}

/** Parses XML text into its root element; text that yields no root element (not XML at all) is a corrupt `kind`. */
export function parseXml(xml: string, kind: string, partName: string): XmlElement {
  const stack: XmlElement[] = [];
  /** Open elements per name: an end tag no open element matches is dropped at once, not searched for. */
  const open = new Map<string, number>();
  const push = (el: XmlElement) => {
    stack.push(el);
    open.set(el.tagName, (open.get(el.tagName) ?? 0) + 1);
  };
  const pop = () => {
    const el = stack.pop()!;
    open.set(el.tagName, open.get(el.tagName)! - 1);
  };
  let root: XmlElement | undefined;
  /** Set once the document declares a known namespace under a prefix of its own. */
  let renames: PrefixRenames | undefined;
  const n = xml.length;
  const addText = (text: string) => {
    const parent = stack[stack.length - 1];
    if (parent && text) parent.childNodes.push(text);
  };
  let i = 0;
  while (i < n) {
    const lt = xml.indexOf("<", i);
    if (lt < 0) {
      addText(decode(xml.slice(i)));
      break;
    }
    if (lt > i) addText(decode(xml.slice(i, lt)));
    if (xml.startsWith("<!--", lt)) {
      const end = xml.indexOf("-->", lt + 4);
      i = end < 0 ? n : end + 3;
    } else if (xml.startsWith("<![CDATA[", lt)) {
      const end = xml.indexOf("]]>", lt + 9);
      addText(xml.slice(lt + 9, end < 0 ? n : end));
      i = end < 0 ? n : end + 3;
    } else if (xml.startsWith("<?", lt)) {
      const end = xml.indexOf("?>", lt + 2);
      i = end < 0 ? n : end + 2;
    } else if (xml.startsWith("<!", lt)) {
      // A DOCTYPE (possibly with an internal subset in [...]): skipped whole, its declarations unused. The `[` is
      // looked for before the first `>` only: searched to the end of the file, every `<!` cost a pass over it.
      const close = xml.indexOf(">", lt);
      const bracket = close < 0 ? -1 : xml.slice(lt, close).indexOf("[");
      const subsetEnd = bracket >= 0 ? xml.indexOf("]", lt + bracket) : -1;
      const end = bracket < 0 ? close : subsetEnd < 0 ? -1 : xml.indexOf(">", subsetEnd);
      i = end < 0 ? n : end + 1;
    } else if (xml[lt + 1] === "/") {
      const end = xml.indexOf(">", lt + 2);
      let name = xml.slice(lt + 2, end < 0 ? n : end).trim();
      if (renames) name = renames.rename(name, false);
      if ((open.get(name) ?? 0) > 0) {
        while (stack[stack.length - 1]!.tagName !== name) pop();
        pop();
      }
      i = end < 0 ? n : end + 1;
    } else {
      NAME.lastIndex = lt + 1;
      let name = NAME.exec(xml)?.[0];
      if (!name) {
        addText("<");
        i = lt + 1;
        continue;
      }
      const attributesAt = lt + 1 + name.length;
      let at = attributesAt;
      let attributes: Map<string, string> | undefined;
      let declares = false;
      for (;;) {
        ATTRIBUTE.lastIndex = at;
        const m = ATTRIBUTE.exec(xml);
        if (!m || m[0].length === 0) break;
        const key = m[1]!;
        const value = decode(m[2] ?? m[3] ?? m[4] ?? "");
        (attributes ??= new Map()).set(renames ? renames.rename(key, true) : key, value);
        // 0x78 is "x": only a namespace declaration (`xmlns`, `xmlns:p`) goes on to the full test.
        if (key.charCodeAt(0) === 0x78 && (key === "xmlns" || key.startsWith("xmlns:")) && unconventional(key, value)) {
          (renames ??= new PrefixRenames()).declare(key, value);
          declares = true;
        }
        at = ATTRIBUTE.lastIndex;
      }
      if (renames) {
        name = renames.rename(name, false);
        if (declares) attributes = renamedAttributes(xml, attributesAt, renames);
      }
      const close = xml.indexOf(">", at);
      const selfClosing = close > 0 && xml[close - 1] === "/";
      const el = new XmlElement(name, attributes);
      const parent = stack[stack.length - 1];
      if (parent) parent.childNodes.push(el);
      else root ??= el;
      if (!selfClosing && (parent || root === el)) push(el);
      i = close < 0 ? n : close + 1;
    }
  }
  if (!root) throw new DocumentCorruptError(kind, `${partName} is not an XML document`);
  return root;
}

/** Throws a corrupt `kind` when a walk reaches `depth` past {@link MAX_XML_DEPTH}. */
export function checkDepth(depth: number, kind: string): void {
  if (depth > MAX_XML_DEPTH) throw new DocumentCorruptError(kind, `elements nest deeper than ${MAX_XML_DEPTH} levels`);
}

/**
 * The integer an attribute declares, clamped to `min..max`; `fallback` when it is absent or not a finite number.
 * Levels and counts come straight from the file: `text:c="1e9"` or `w:ilvl="-1"` must not reach `String.repeat`.
 */
export function intAttr(value: string | null | undefined, min: number, max: number, fallback: number): number {
  const n = value == null || value.trim() === "" ? NaN : Number(value);
  if (!Number.isFinite(n)) return fallback;
  return Math.min(max, Math.max(min, Math.trunc(n)));
}

/** Direct child elements of `el` named `name` (all of them when `name` is omitted). */
export function children(el: XmlElement, name?: string): XmlElement[] {
  const out: XmlElement[] = [];
  for (const c of el.childNodes) if (typeof c !== "string" && (!name || c.tagName === name)) out.push(c);
  return out;
}

/** First direct child element of `el` named `name`. */
export function child(el: XmlElement | undefined, name: string): XmlElement | undefined {
  if (!el) return undefined;
  for (const c of el.childNodes) if (typeof c !== "string" && c.tagName === name) return c;
  return undefined;
}

/** Descendant elements of `el` named `name`, in document order (iterative). */
export function descendants(el: XmlElement, name: string): XmlElement[] {
  const out: XmlElement[] = [];
  const stack: XmlElement[] = [el];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (node !== el && node.tagName === name) out.push(node);
    for (let i = node.childNodes.length - 1; i >= 0; i--) {
      const c = node.childNodes[i]!;
      if (typeof c !== "string") stack.push(c);
    }
  }
  return out;
}
