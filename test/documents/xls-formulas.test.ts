/**
 * Formula cells of an XLS written by LibreOffice 7.4 (documents/office/xls.ts, biff-records.ts). The fixture was
 * written from test/fixtures/documents/formulas.fods with `soffice --headless --convert-to xls:"MS Excel 97"
 * formulas.fods`. Its "Calculated" sheet's formulas have no results in the .fods, so LibreOffice calculated them
 * and wrote each string result where BIFF8 puts it: a STRING record right after the FORMULA (after the SHRFMLA
 * for the first cell of a formula filled down a column), going on in a CONTINUE record past 8,224 bytes (with a
 * fresh flags byte there, UTF-16 for 東京), an empty string as the FORMULA's own "empty" result. Every one of
 * those reads as LibreOffice shows it (`soffice --convert-to csv`), so the old note's gap "XLS LibreOffice string
 * formulas" is not a reading error.
 *
 * What is lost is lost in LibreOffice's export: it writes a string result only for a formula it knows gives text
 * (the cell's result type, set when it calculates). A formula whose result it kept from the file it opened (the
 * "Kept" sheet: results cached in the .fods, as in any .ods LibreOffice saved) and an array formula's cells get a
 * FORMULA holding the number 0 and no STRING record. LibreOffice shows their strings only because it recalculates
 * an XLS when it opens one; the file has no text to show, so they read as the 0 the file holds.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { BiffStream } from "../../src/documents/office/biff-records.ts";
import { CompoundFile } from "../../src/documents/office/cfb.ts";
import { convertOffice } from "../../src/documents/office/readers.ts";

const bytes = new Uint8Array(readFileSync(join(import.meta.dir, "..", "fixtures", "documents", "formulas.xls")));
const markdown = convertOffice("xls", bytes).markdown;
const [calculated, kept] = markdown.split("\n## Kept\n");

const FORMULA = 0x0006;
const STRING = 0x0207;
const SHRFMLA = 0x04bc;
const ARRAY = 0x0221;
const CONTINUE = 0x003c;

/** The types of the workbook stream's records, in order. */
function recordTypes(): number[] {
  const biff = new BiffStream(new CompoundFile(bytes, "XLS").stream("Workbook")!);
  return Array.from({ length: biff.count }, (_, i) => biff.type(i)!);
}

describe("XLS formulas written by LibreOffice", () => {
  test("the file holds what each test below says it reads: STRING records, after SHRFMLA and into CONTINUE", () => {
    const types = recordTypes();
    const after = (type: number) => types.flatMap((t, i) => (t === type ? [types[i + 1]] : []));
    // 5 plain string formulas, 2 long ones, 5 filled down (the first's STRING after its SHRFMLA).
    expect(types.filter((t) => t === STRING)).toHaveLength(12);
    expect(after(SHRFMLA)).toEqual([STRING]);
    expect(after(STRING).filter((t) => t === CONTINUE)).toHaveLength(2);
    // No STRING after: the empty, number, boolean and 2 error results (their value is in the FORMULA), the array
    // formula's 2 cells (its first's ARRAY record followed by the next cell) and the Kept sheet's 3 formulas.
    expect(after(ARRAY)).toEqual([0x00fd]);
    expect(types.filter((t, i) => t === FORMULA && ![STRING, SHRFMLA].includes(types[i + 1]!))).toHaveLength(10);
  });

  test("string, empty, long, non-Latin-1, shared, boolean, error and number results: as LibreOffice shows them", () => {
    expect(calculated).toBe(
      [
        "## Calculated",
        "",
        "| Kind | Input | Result |",
        "| --- | --- | --- |",
        "| joined | 2.5 | 2.5 kg |",
        "| concatenate | Ada | Hello, Ada! |",
        "| if | 3 | big |",
        "| upper | café 東京 | CAFÉ 東京 |",
        "| text | 1234.5 | 1,234.50 |",
        "| empty |  |  |",
        // 10,000 8-bit characters: 8,221 in the STRING record, the rest in a CONTINUE.
        `| long |  | ${"abcdefghij".repeat(1000)} |`,
        // 5,000 UTF-16 characters: 4,110 in the STRING record, the rest after the CONTINUE's flags byte.
        `| long wide |  | ${"東京".repeat(2500)} |`,
        "| number | 3 | 6 |",
        "| boolean | 3 | TRUE |", // LibreOffice's CSV says 1: it recalculates, and the cell's format is General
        "| error |  | #N/A |",
        "| division |  | #DIV/0! |",
        "| filled | One | one! |",
        "| filled | Two | two! |",
        "| filled | Three | three! |",
        "| filled | Four | four! |",
        "| filled | Five | five! |",
        // {=B19:B20&"?"}: LibreOffice shows p? and q?, but wrote both cells' result as the number 0.
        "| array | p | 0 |",
        "| array | q | 0 |",
        "| end |  |  |",
        "",
      ].join("\n"),
    );
  });

  test("string results LibreOffice kept from the file it opened are not in the XLS: the 0 it wrote is shown", () => {
    expect(kept).toBe(["", "| Kind | Input | Result |", "| --- | --- | --- |", "| joined | 2.5 | 0 |", "| upper | café | 0 |", "| number | 3 | 6 |", ""].join("\n"));
  });
});
