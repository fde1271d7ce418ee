/**
 * PII patterns (redact/detectors.ts) and their application (redact/apply.ts): what each bucket finds, what it must
 * leave alone (dates, prices, versions, order ids, IP addresses), check digits, overlaps and replacement styles.
 */
import { describe, expect, test } from "bun:test";
import { htmlToMarkdown } from "../../src/pipeline/index.ts";
import { applySpans, MAX_QUOTED_SPANS, mergeSpans, plainView, spansOfQuotes, toMarkdownSpans } from "../../src/redact/apply.ts";
import { findPatternSpans, ibanValid, luhnValid, PII_ENTITIES, type PiiEntity } from "../../src/redact/detectors.ts";
import { patternRedactor, piiOptions } from "../../src/redact/redactor.ts";

const ALL = new Set<PiiEntity>(PII_ENTITIES);
const found = (text: string, entities: Set<PiiEntity> = ALL) =>
  findPatternSpans(text, entities)
    .sort((a, b) => a.start - b.start)
    .map((s) => [s.type, text.slice(s.start, s.end)]);
const redacted = (text: string) => applySpans(text, findPatternSpans(text, ALL), "tag");

describe("patterns", () => {
  test("e-mail addresses, in prose and in mailto links", () => {
    expect(redacted("Write to jane.doe+news@mail.example.co.uk today.")).toBe("Write to <EMAIL> today.");
    expect(redacted("[Contact](mailto:sales@example.com)")).toBe("[Contact](mailto:<EMAIL>)");
    expect(found("not@an-address and user@localhost")).toEqual([]);
  });

  test("phone numbers with a +, a trunk 0, brackets or 3-3-4; not dates, prices, versions, ids or IPs", () => {
    for (const phone of ["+49 30 1234567", "+1 (555) 010-4477", "(020) 7946 0958", "030-12345678", "555-010-4477", "+33 1 42 68 53 00", "+4915112345678"]) {
      expect(found(`Call ${phone} now`)).toEqual([["PHONE", phone]]);
    }
    for (const text of ["On 2024-01-15 at 10:30", "Order 123456789 shipped", "Costs 1 234 567 EUR", "version 1.2.3.4", "from 192.168.10.254", "15.01.2024", "ISBN 978-3-16-148410-0", "a run of 12345678"]) {
      expect(found(text)).toEqual([]);
    }
  });

  test("not phones: signed decimals, amounts and shares, +1 with too few digits, dates written with spaces; phones around them still are", () => {
    for (const text of ["GPS lat +48.856613 lon +2.352222", "Change: +12.345678 %", "Delta +1 234 567 EUR", "Delta +49 234 567 EUR", "Up € +44 123 4567", "Date 06 12 2024", "Date 12 06 2024 and 01 02 1999", "Share +33 1234567‰"]) {
      expect(found(text)).toEqual([]);
    }
    for (const phone of ["+44 20 7946 0958", "+1 415 555 0132", "+1 (876) 555-1234", "06 12 20 24 55", "01 42 68 53 00", "+49 30 12345678"]) {
      expect(found(`Call ${phone} now`)).toEqual([["PHONE", phone]]);
    }
    // A phone beside a date or an amount is still one.
    expect(found("On 06 12 2024 call 020 7946 0958 (5 EUR)")).toEqual([["PHONE", "020 7946 0958"]]);
  });

  test("a card number inside a hex string is not a card", () => {
    for (const text of ["0x4111111111111111", "hash 4111111111111111a", "deadbeef4111111111111111cafe", "0X4111111111111111"]) {
      expect(found(text)).toEqual([]);
    }
    for (const card of ["4111111111111111", "4111 1111 1111 1111", "4111-1111-1111-1111"]) {
      expect(found(`Card: ${card}.`)).toEqual([["FINANCIAL", card]]);
      expect(found(`(${card})`)).toEqual([["FINANCIAL", card]]);
    }
  });

  test("a card number glued to a word or `_` is a card: only hex letters (or `x`) glued to it make it hex", () => {
    for (const [text, card] of [["card_4111111111111111", "4111111111111111"], ["visa4111111111111111", "4111111111111111"], ["id_4111111111111111", "4111111111111111"], ["4111111111111111USD", "4111111111111111"]]) {
      expect(found(text!)).toEqual([["FINANCIAL", card!]]);
    }
  });

  test("a phone followed or preceded by a price is still a phone; amounts beside weak shapes are not", () => {
    const phones: [string, string][] = [
      ["Psychic line 1-900-555-0199 $2.99/min", "1-900-555-0199"],
      ["Hotline 09001 234567 £1.50/min", "09001 234567"],
      ["Call 0900 123 4567 €1.99/min", "0900 123 4567"],
      ["Tel +44 20 7946 0958 £0.13/min", "+44 20 7946 0958"],
      ["Tel 030 12345679 € 0,14/Min", "030 12345679"],
      ["Call 415-555-0100 % off", "415-555-0100"],
      ["Fax 030 12345678 $", "030 12345678"],
      ["€ 030 1234567", "030 1234567"],
      ["+1 415 555 0100 USD", "+1 415 555 0100"],
      ["Call +4930123456 €0.14/min", "+4930123456"],
    ];
    for (const [text, phone] of phones) expect(found(text)).toEqual([["PHONE", phone]]);
    for (const text of ["+1 234 567 EUR", "+12.345678 %", "Up € +44 123 4567", "Kosten: € 0 30 1234567", "+4930123456 €"]) expect(found(text)).toEqual([]);
  });

  test("a phone label before a spaced date's shape makes it a phone; without one it stays a date", () => {
    for (const [text, phone] of [["Tel 07 12 2024", "07 12 2024"], ["Ph 02 11 2023", "02 11 2023"], ["phone: 06 12 2024", "06 12 2024"], ["FAX. 01 12 2019", "01 12 2019"], ["Mobile 07 12 2024", "07 12 2024"]]) {
      expect(found(text!)).toEqual([["PHONE", phone!]]);
    }
    for (const text of ["Date 07 12 2024", "Telegram 07 12 2024"]) expect(found(text)).toEqual([]);
  });

  test("payment cards pass Luhn; IBANs pass mod 97; US social security numbers", () => {
    expect(luhnValid("4111111111111111")).toBe(true);
    expect(luhnValid("4111111111111112")).toBe(false);
    expect(found("Card 4111 1111 1111 1111 exp 12/29")).toEqual([["FINANCIAL", "4111 1111 1111 1111"]]);
    expect(found("Card 4111-1111-1111-1112")).toEqual([]);
    expect(ibanValid("DE89370400440532013000")).toBe(true);
    expect(ibanValid("DE89370400440532013001")).toBe(false);
    expect(found("IBAN DE89 3704 0044 0532 0130 00 (Commerzbank)")).toEqual([["FINANCIAL", "DE89 3704 0044 0532 0130 00"]]);
    expect(found("SSN 078-05-1120; bad 000-12-3456")).toEqual([["FINANCIAL", "078-05-1120"]]);
  });

  test("credentials by format, labelled values, private key blocks", () => {
    const key = "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA\n-----END RSA PRIVATE KEY-----";
    const text = `aws AKIAIOSFODNN7EXAMPLE gh ghp_${"a".repeat(36)} openai sk-proj-${"b".repeat(24)} password: hunter2hunter\n${key}`;
    expect(found(text).map(([t, v]) => [t, v!.slice(0, 12)])).toEqual([
      ["SECRET", "AKIAIOSFODNN"],
      ["SECRET", "ghp_aaaaaaaa"],
      ["SECRET", "sk-proj-bbbb"],
      ["SECRET", "hunter2hunte"],
      ["SECRET", "-----BEGIN R"],
    ]);
    expect(redacted("api_key=abcdef123456 and the secret: sauce")).toBe("api_key=<SECRET> and the secret: sauce");
  });

  test("only the requested buckets", () => {
    const text = "Mail a@example.org or call +44 20 7946 0958";
    expect(found(text, new Set<PiiEntity>(["PHONE"]))).toEqual([["PHONE", "+44 20 7946 0958"]]);
  });
});

describe("application", () => {
  test("styles: tag, mask (one * per character), remove", () => {
    const text = "Mail a@example.org now";
    const spans = findPatternSpans(text, ALL);
    expect(applySpans(text, spans, "tag")).toBe("Mail <EMAIL> now");
    expect(applySpans(text, spans, "mask")).toBe("Mail ************* now");
    expect(applySpans(text, spans, "remove")).toBe("Mail  now");
  });

  test("overlaps merge into the wider span; quotes match every occurrence, short ones none", () => {
    expect(mergeSpans([{ start: 0, end: 10, type: "PHONE" }, { start: 2, end: 6, type: "FINANCIAL" }, { start: 8, end: 14, type: "EMAIL" }])).toEqual([{ start: 0, end: 14, type: "PHONE" }]);
    const text = "Ada Lovelace met Ada Lovelace's friend Al.";
    const spans = spansOfQuotes(text, [{ text: "Ada Lovelace", type: "PERSON" }, { text: "Al", type: "PERSON" }]);
    expect(applySpans(text, spans, "tag")).toBe("<PERSON> met <PERSON>'s friend Al.");
  });

  test("options: true is accurate, all entities, tags; an empty entity list means all", () => {
    expect(piiOptions(true)).toEqual({ mode: "accurate", entities: [...PII_ENTITIES], replaceStyle: "tag" });
    expect(piiOptions({ mode: "fast", entities: ["EMAIL", "EMAIL"], replaceStyle: "mask" })).toEqual({ mode: "fast", entities: ["EMAIL"], replaceStyle: "mask" });
    expect(piiOptions({ entities: [] })!.entities).toEqual([...PII_ENTITIES]);
    expect(piiOptions(false)).toBeUndefined();
  });
});

describe("review cases: real markdown, false positives, bounded time", () => {
  const fast = (md: string) => patternRedactor.redact(md, piiOptions({ mode: "fast" })!, { deadline: Date.now() + 10_000 });

  test("the converter's escapes (`\\_`, `\\*`) do not hide e-mails, tokens or labelled secrets", async () => {
    const md = htmlToMarkdown(
      `<p>Mail john_doe@example.com; key ghp_${"x".repeat(36)}; sk_live_abcdefghijklmnop1234; api_key=abcdef123456; client_secret: s3cr3tValue99</p>`,
    );
    expect(md).toContain("john\\_doe"); // what the patterns have to see through
    const out = await fast(md);
    for (const leaked of ["john", "xxxxxxxx", "abcdefghijklmnop1234", "abcdef123456", "s3cr3tValue99"]) expect(out).not.toContain(leaked);
    expect(out).toContain("Mail <EMAIL>;");
  });

  test("a model quote of the unescaped text finds the escaped markdown, as whole words only", () => {
    const view = plainView("Mail john\\_doe@example.com. Max read the Maximum; Ann the Annual report.");
    const spans = spansOfQuotes(view.plain, [
      { text: "john_doe@example.com", type: "EMAIL" },
      { text: "Max", type: "PERSON" },
      { text: "Ann", type: "PERSON" },
    ]);
    expect(applySpans("Mail john\\_doe@example.com. Max read the Maximum; Ann the Annual report.", toMarkdownSpans(view, spans), "tag")).toBe(
      "Mail <EMAIL>. <PERSON> read the Maximum; <PERSON> the Annual report.",
    );
  });

  test("left alone: retina images, dates with times, opening hours, bracketed years, labelled ids, prose after 'secret:', a link after 'Password:'", async () => {
    for (const md of [
      "![logo](https://cdn.example.com/img/logo@2x.png)",
      "Posted 01.02.2024 12:30",
      "Mo–Fr 08.00 - 18.00 Uhr",
      "Years (2019) 2020-2021",
      "SKU 0123-456-789",
      "Our secret: happiness",
      "Password: [Forgot password?](https://example.com/reset)",
    ]) {
      expect(await fast(md)).toBe(md);
    }
  });

  test("found: toll-free and dotted North American numbers, bearer tokens", async () => {
    expect(await fast("Call 1-800-555-0199 or 555.010.4477")).toBe("Call <PHONE> or <PHONE>");
    expect(await fast("Authorization: Bearer abcd1234efgh5678ijkl")).toBe("Authorization: Bearer <SECRET>");
  });

  test("emphasis marks are not part of what they wrap; an escaped first character takes its backslash along", async () => {
    const md = "_Ada Lovelace_ wrote to _ada@example.org_ and **+44 20 7946 0958**; see \\_bob@example.org; code my_var and api_key=abcdef123456";
    const view = plainView(md);
    const spans = [...findPatternSpans(view.plain, ALL), ...spansOfQuotes(view.plain, [{ text: "Ada Lovelace", type: "PERSON" }])];
    expect(applySpans(md, toMarkdownSpans(view, spans), "tag")).toBe("_<PERSON>_ wrote to _<EMAIL>_ and **<PHONE>**; see <EMAIL>; code my_var and api_key=<SECRET>");
  });

  test("the model's quotes cannot multiply: matches of one quote do not overlap, and spans are capped", () => {
    const text = "-".repeat(1_000_000);
    const started = performance.now();
    const spans = spansOfQuotes(text, [{ text: "---", type: "SECRET" }, { text: "----", type: "SECRET" }]);
    expect(spans.length).toBeLessThanOrEqual(MAX_QUOTED_SPANS);
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(spansOfQuotes("x-x-x-x", [{ text: "x-x", type: "PERSON" }]).map((s) => s.start)).toEqual([0, 4]);
  });

  test("every pattern runs in bounded time on adversarial input (300 KB runs took 24 s before the bounds)", () => {
    const inputs = [
      "0x" + "0123456789abcdef".repeat(20_000),
      "sk-".repeat(100_000),
      "eyJ-".repeat(75_000),
      "-----BEGIN PRIVATE KEY-----\n".repeat(10_000),
      "a.".repeat(150_000) + "@",
      "1 ".repeat(150_000),
      "password:".repeat(30_000),
    ];
    const started = performance.now();
    for (const text of inputs) findPatternSpans(text, ALL);
    expect(performance.now() - started).toBeLessThan(2_000);
  });
});
