/**
 * @module documents/office/docx-math
 * An equation of a DOCX (Office Math, `m:oMath`) as one line of text: its characters (`m:t`) with the structure
 * that changes their meaning written out linearly, as one would type it: `E=mc^2`, `(a+b)/2`, `x_i`, `√(x)`,
 * `∑_(i=1)^n`. Concatenated alone, `c` and its exponent `2` read `c2`; left out, "Energy: E=mc² holds." read
 * "Energy:  holds.".
 */
import { checkDepth, child, children, type XmlElement } from "./xml.ts";

/** A part in parentheses when it is more than one character, so `x^(n+1)` is not read `x^n+1`. */
function group(text: string): string {
  return [...text].length > 1 ? `(${text})` : text;
}

/** The `w:val` of a property (`m:chr`, `m:begChr`) in the element's `…Pr`, or `fallback`. */
function prop(el: XmlElement, pr: string, name: string, fallback: string): string {
  const value = child(child(el, pr), name)?.getAttribute("m:val") ?? child(child(el, pr), name)?.getAttribute("w:val");
  return value ?? fallback;
}

/** The linear text of an Office Math element (an `m:oMath`, an `m:oMathPara`, or any part of one). */
export function mathText(el: XmlElement, depth = 0): string {
  checkDepth(depth, "DOCX");
  const part = (name: string) => {
    const c = child(el, name);
    return c ? mathText(c, depth + 1) : "";
  };
  switch (el.tagName) {
    case "m:t":
    case "w:t":
      return el.textContent;
    case "m:sSup":
      return `${part("m:e")}^${group(part("m:sup"))}`;
    case "m:sSub":
      return `${part("m:e")}_${group(part("m:sub"))}`;
    case "m:sSubSup":
      return `${part("m:e")}_${group(part("m:sub"))}^${group(part("m:sup"))}`;
    case "m:f":
      return `${group(part("m:num"))}/${group(part("m:den"))}`;
    case "m:rad":
      return `√${group(part("m:e"))}`;
    case "m:d": {
      const items = children(el, "m:e").map((e) => mathText(e, depth + 1));
      return `${prop(el, "m:dPr", "m:begChr", "(")}${items.join(prop(el, "m:dPr", "m:sepChr", "|"))}${prop(el, "m:dPr", "m:endChr", ")")}`;
    }
    case "m:nary": {
      const sub = part("m:sub");
      const sup = part("m:sup");
      return `${prop(el, "m:naryPr", "m:chr", "∫")}${sub ? `_${group(sub)}` : ""}${sup ? `^${group(sup)}` : ""} ${part("m:e")}`;
    }
    case "m:func":
      return `${part("m:fName")} ${part("m:e")}`;
    case "m:eqArr":
    case "m:mr":
      return children(el, "m:e").map((e) => mathText(e, depth + 1)).join(", ");
    case "m:m":
      return `[${children(el, "m:mr").map((r) => mathText(r, depth + 1)).join("; ")}]`;
    case "m:oMathPara":
      return children(el, "m:oMath").map((m) => mathText(m, depth + 1)).join(" ");
    default: {
      // Properties (`m:rPr`, `m:sSupPr`, a run's `w:rPr`) hold no text.
      if (/Pr$/.test(el.tagName)) return "";
      let out = "";
      for (const c of children(el)) out += mathText(c, depth + 1);
      return out;
    }
  }
}
