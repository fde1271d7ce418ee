/**
 * @module documents/office/xls-hyperlinks
 * The web and mail hyperlinks of an XLS sheet, so a linked cell reads `[text](url)` as it does from XLSX. Each is an
 * HLINK record (MS-XLS 2.4.140) after the sheet's cells: the cell range it covers, a CLSID, then a Hyperlink Object
 * (MS-OSHARED 2.3.7.1): a version, flags saying which optional fields follow (display name, target frame, moniker,
 * location…), and for an address a URL moniker (CLSID 79EAC9E0-BAF9-11CE-8C82-00AA004BA90B, then a byte count and
 * the URL in UTF-16 ending with a NUL). Links to files (file monikers) and to places in the workbook (a location
 * alone) are left out, as they are from XLSX: only http, https and mailto addresses mean something on a page.
 */
import type { BiffRecord } from "./biff-records.ts";
import { isWebOrMail } from "./xlsx-links.ts";

/** The HLINK record's type. */
export const HLINK = 0x01b8;

/** The URL moniker's CLSID as stored (its first three fields little-endian). */
const URL_MONIKER = [0xe0, 0xc9, 0xea, 0x79, 0xf9, 0xba, 0xce, 0x11, 0x8c, 0x82, 0x00, 0xaa, 0x00, 0x4b, 0xa9, 0x0b];

const HAS_MONIKER = 0x0001;
const HAS_DISPLAY_NAME = 0x0010;
const HAS_FRAME_NAME = 0x0080;
const MONIKER_SAVED_AS_STRING = 0x0100;

const utf16 = new TextDecoder("utf-16le");

/** A hyperlink's first cell (0-based row and column, as the cell records count them) and its address. */
export interface XlsHyperlink {
  row: number;
  column: number;
  url: string;
}

/** UTF-16 code units from `at` to `end`, up to the first NUL. */
function nulTerminated(data: Uint8Array, at: number, end: number): string {
  let stop = at;
  while (stop + 1 < end && (data[stop] !== 0 || data[stop + 1] !== 0)) stop += 2;
  return utf16.decode(data.subarray(at, stop));
}

/**
 * The web or mail address an HLINK record links its first cell to, or undefined: another kind of link, or a record
 * whose fields run past its end (a crafted length is a link left out, not a failed workbook).
 */
export function hyperlinkOf(r: BiffRecord): XlsHyperlink | undefined {
  const { data, view } = r;
  if (data.length < 32) return undefined;
  const flags = view.getUint32(28, true);
  if (!(flags & HAS_MONIKER)) return undefined;
  let at = 32;
  /** Skips a HyperlinkString (a count of UTF-16 units, NUL included, then the units); false past the record. */
  const skipString = () => {
    if (at + 4 > data.length) return false;
    at += 4 + view.getUint32(at, true) * 2;
    return at <= data.length;
  };
  if (flags & HAS_DISPLAY_NAME && !skipString()) return undefined;
  if (flags & HAS_FRAME_NAME && !skipString()) return undefined;
  let url: string;
  if (flags & MONIKER_SAVED_AS_STRING) {
    const start = at + 4;
    if (!skipString()) return undefined;
    url = nulTerminated(data, start, at);
  } else {
    if (at + 20 > data.length || URL_MONIKER.some((b, i) => data[at + i] !== b)) return undefined;
    const length = view.getUint32(at + 16, true);
    const start = at + 20;
    url = nulTerminated(data, start, Math.min(data.length, start + length));
  }
  url = url.trim();
  if (!isWebOrMail(url)) return undefined;
  return { row: view.getUint16(0, true), column: view.getUint16(4, true), url };
}
