/**
 * @module documents/office/summary-info
 * The title of a legacy Office file, from its `\x05SummaryInformation` stream (an OLE property set, MS-OLEPS):
 * what Word and Excel show as the document's title, and what `metadata.title` is for a DOCX or XLSX (their
 * `docProps/core.xml`). Only the title and the code page its 8-bit strings are written in are read; a stream that
 * does not parse gives no title, never an error (the document itself is still readable).
 */
import type { CompoundFile } from "./cfb.ts";

const PID_CODEPAGE = 1;
const PID_TITLE = 2;
const VT_LPSTR = 0x1e;
const VT_LPWSTR = 0x1f;
/** Longest title kept (a property may declare megabytes; so may a DOCX's core.xml: readers.ts cuts those too). */
export const MAX_TITLE_CHARS = 1000;

/** The text decoder for a Windows code page (1252 when unknown or not one TextDecoder knows). */
function decoderFor(codePage: number): TextDecoder {
  const names: Record<number, string> = { 1200: "utf-16le", 65001: "utf-8", 932: "shift_jis", 936: "gbk", 949: "euc-kr", 950: "big5", 10000: "macintosh" };
  const name = names[codePage] ?? (codePage === 874 || (codePage >= 1250 && codePage <= 1258) ? `windows-${codePage}` : "windows-1252");
  try {
    return new TextDecoder(name);
  } catch {
    return new TextDecoder("windows-1252");
  }
}

/** The document's title, if its summary information names one. */
export function summaryTitle(file: CompoundFile): string | undefined {
  let stream: Uint8Array | undefined;
  try {
    stream = file.stream("\x05SummaryInformation");
  } catch {
    return undefined;
  }
  if (!stream || stream.length < 48) return undefined;
  const v = new DataView(stream.buffer, stream.byteOffset, stream.byteLength);
  const set = v.getUint32(44, true);
  if (set + 8 > stream.length) return undefined;
  const count = Math.min(v.getUint32(set + 4, true), Math.floor((stream.length - set - 8) / 8));
  const props = new Map<number, number>();
  for (let i = 0; i < count; i++) props.set(v.getUint32(set + 8 + i * 8, true), set + v.getUint32(set + 12 + i * 8, true));
  const codePageAt = props.get(PID_CODEPAGE);
  const codePage = codePageAt !== undefined && codePageAt + 6 <= stream.length ? v.getUint16(codePageAt + 4, true) : 1252;
  const at = props.get(PID_TITLE);
  if (at === undefined || at + 8 > stream.length) return undefined;
  const type = v.getUint32(at, true);
  const size = v.getUint32(at + 4, true);
  let title: string;
  if (type === VT_LPSTR) title = decoderFor(codePage).decode(stream.subarray(at + 8, Math.min(stream.length, at + 8 + size)));
  else if (type === VT_LPWSTR) title = new TextDecoder("utf-16le").decode(stream.subarray(at + 8, Math.min(stream.length, at + 8 + size * 2)));
  else return undefined;
  title = title.replace(/\0[\s\S]*$/, "").replace(/\s+/g, " ").trim().slice(0, MAX_TITLE_CHARS);
  return title || undefined;
}
