/**
 * @module documents/office/docx-relationships
 * The part names and relationships of a DOCX package (ECMA-376 Part 2, Open Packaging Conventions), for
 * docx-package.ts: a relationship part (`word/_rels/document.xml.rels`) lists what its source part uses, each by id,
 * type and target; a target is relative to the source part's folder or absolute from the package root, and part names
 * compare case-insensitively (the caller's maps are keyed by lower-case name).
 *
 * Targets come from the file: the query or fragment is cut with `indexOf`, not a regex that would scan to the end
 * again from every `?` of a crafted target.
 */
import { DocumentCorruptError } from "../errors.ts";
import { children, parseXml, type XmlElement } from "./xml.ts";

/** One relationship of a part: its id, its type's last segment (lower-case: `styles`, `afchunk`), its target. */
export interface Relationship {
  id: string;
  type: string;
  /** The part it names (resolved against the source part's folder), or the external address as written. */
  target: string;
  external: boolean;
}

/** The package's own relationships: the main part (`officeDocument`) and the core properties. */
export const PACKAGE_RELS = "_rels/.rels";
/** The part that gives each part's content type, by extension (`Default`) or by name (`Override`). */
export const CONTENT_TYPES = "[Content_Types].xml";

const decoder = new TextDecoder();

/**
 * `target` resolved against the folder of `source` (a part name without a leading slash; "" for the package):
 * absolute targets (`/word/afchunk.htm`) from the package root, `..` and `.` segments followed, `%20` decoded.
 */
export function resolvePartName(source: string, target: string): string {
  const query = target.indexOf("?");
  const fragment = target.indexOf("#");
  const cut = query < 0 ? fragment : fragment < 0 ? query : Math.min(query, fragment);
  let path = cut < 0 ? target : target.slice(0, cut);
  try {
    path = decodeURIComponent(path);
  } catch {
    // a malformed escape is kept as written
  }
  const out = path.startsWith("/") ? [] : source.split("/").slice(0, -1);
  for (const segment of path.split(/[/\\]/)) {
    if (segment === "" || segment === ".") continue;
    if (segment === "..") out.pop();
    else out.push(segment);
  }
  return out.join("/");
}

/** The relationship part of `part` (`word/document2.xml` → `word/_rels/document2.xml.rels`; "" → `_rels/.rels`). */
export function relationshipPartOf(part: string): string {
  const slash = part.lastIndexOf("/");
  return `${part.slice(0, slash + 1)}_rels/${part.slice(slash + 1)}.rels`;
}

/** The relationships of a `.rels` part named `name`; one that is not XML has none. */
export function readRelationships(data: Uint8Array, name: string): Relationship[] {
  let root: XmlElement;
  try {
    root = parseXml(decoder.decode(data), "DOCX", name);
  } catch (err) {
    if (err instanceof DocumentCorruptError) return [];
    throw err;
  }
  // `word/_rels/document.xml.rels` speaks for `word/document.xml`: targets resolve against `word/`.
  const source = name.replace(/(^|\/)_rels\/([^/]*)\.rels$/i, "$1$2");
  return children(root, "Relationship").map((r) => {
    const target = r.getAttribute("Target") ?? "";
    // A hyperlink's address is external even where a writer left out TargetMode: it is no part name.
    const external = /^external$/i.test(r.getAttribute("TargetMode") ?? "") || /^[a-z][a-z0-9+.-]*:/i.test(target);
    const type = r.getAttribute("Type") ?? "";
    return { id: r.getAttribute("Id") ?? "", type: type.slice(type.lastIndexOf("/") + 1).toLowerCase(), target: external ? target : resolvePartName(source, target), external };
  });
}

/** The content types `[Content_Types].xml` gives parts: by name (`Override`), else by extension (`Default`). */
export class ContentTypes {
  private readonly defaults = new Map<string, string>();
  private readonly overrides = new Map<string, string>();

  /** Reads the part's bytes; none are known when it is missing or not XML, which a package can do without. */
  constructor(data: Uint8Array | undefined) {
    if (!data) return;
    let root: XmlElement;
    try {
      root = parseXml(decoder.decode(data), "DOCX", CONTENT_TYPES);
    } catch (err) {
      if (err instanceof DocumentCorruptError) return;
      throw err;
    }
    const type = (el: XmlElement) => (el.getAttribute("ContentType") ?? "").split(";")[0]!.trim().toLowerCase();
    for (const d of children(root, "Default")) this.defaults.set((d.getAttribute("Extension") ?? "").toLowerCase(), type(d));
    for (const o of children(root, "Override")) this.overrides.set(resolvePartName("", o.getAttribute("PartName") ?? "").toLowerCase(), type(o));
  }

  /** The content type of part `name` (lower-case, no parameters), or "" when the package does not say. */
  of(name: string): string {
    const override = this.overrides.get(name.toLowerCase());
    if (override !== undefined) return override;
    const dot = name.lastIndexOf(".");
    return dot < 0 || dot < name.lastIndexOf("/") ? "" : (this.defaults.get(name.slice(dot + 1).toLowerCase()) ?? "");
  }
}

/**
 * The local name of the root element of XML `data`, from its first kilobytes (after the declaration, comments and a
 * DOCTYPE); undefined when they do not tell.
 */
export function rootLocalName(data: Uint8Array): string | undefined {
  const head = decoder.decode(data.subarray(0, 4096));
  for (let at = head.indexOf("<"); at >= 0; at = head.indexOf("<", at + 1)) {
    const next = head[at + 1];
    if (next === "?" || next === "!") {
      const end = head.indexOf(head.startsWith("<!--", at) ? "-->" : ">", at + 2);
      if (end < 0) return undefined;
      at = end;
      continue;
    }
    const name = /^[^\s/>]+/.exec(head.slice(at + 1, at + 257))?.[0];
    return name?.slice(name.indexOf(":") + 1);
  }
  return undefined;
}
