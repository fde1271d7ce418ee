/**
 * @module documents/ocr/languages
 * Maps `location.languages` (BCP 47 tags such as `de-DE`, `fr`) to tesseract language codes and keeps the ones
 * this server has data for: English is embedded; others are `<code>.traineddata[.gz]` files in the configured
 * tessdata folder (`CRAWLBOX_TESSDATA_DIR`). Languages without data are skipped (the same list also sets
 * `Accept-Language`, so refusing the request would be wrong); English is the fallback.
 */
import { readdirSync } from "node:fs";

const ISO_639_1_TO_TESSERACT: Record<string, string> = {
  af: "afr", ar: "ara", bg: "bul", bn: "ben", ca: "cat", cs: "ces", da: "dan", de: "deu", el: "ell", en: "eng",
  es: "spa", et: "est", fa: "fas", fi: "fin", fr: "fra", he: "heb", hi: "hin", hr: "hrv", hu: "hun", id: "ind",
  it: "ita", ja: "jpn", ko: "kor", lt: "lit", lv: "lav", nl: "nld", no: "nor", nb: "nor", pl: "pol", pt: "por",
  ro: "ron", ru: "rus", sk: "slk", sl: "slv", sr: "srp", sv: "swe", ta: "tam", th: "tha", tr: "tur", uk: "ukr",
  vi: "vie", zh: "chi_sim",
};

/** Language codes with data: `eng` plus the files found in `tessdataDir`. */
export function availableLanguages(tessdataDir: string): string[] {
  const out = new Set(["eng"]);
  if (tessdataDir) {
    try {
      for (const f of readdirSync(tessdataDir)) {
        const m = /^([a-z_]+)\.traineddata(\.gz)?$/i.exec(f);
        if (m) out.add(m[1]!);
      }
    } catch {
      // A missing folder means English only; config validation reports it at boot.
    }
  }
  return [...out];
}

/** The tesseract `langs` string (`deu+eng`) for the requested languages, limited to `available`. */
export function ocrLanguages(requested: readonly string[] | undefined, available: readonly string[]): string {
  const codes: string[] = [];
  for (const tag of requested ?? []) {
    const lower = tag.toLowerCase();
    const code = available.includes(lower) ? lower : ISO_639_1_TO_TESSERACT[lower.split(/[-_]/)[0]!];
    if (code && available.includes(code) && !codes.includes(code)) codes.push(code);
  }
  if (codes.length === 0) codes.push("eng");
  return codes.join("+");
}
