/**
 * The `branding` format on fixture pages with known design tokens (test/fixtures/branding-page.ts): every
 * deterministic field checked exactly, without an LLM (no personality, no error) and with the fake LLM
 * (personality from one delimited call); the official SDK's scrape; a browserless server's 400; the
 * derivation rules as units. The two browser harnesses run one after the other (one Chromium at a time) and
 * each asserts that no Chromium is left.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import Firecrawl from "@mendable/firecrawl-js";
import type { BrandingSnapshot } from "../../src/engines/browser/branding.ts";
import { baseUnit, deriveBranding, fontStack, isChromatic, nameFromLogoAlt, nameFromTitle } from "../../plugins/formats/branding.ts";
import { ACME, startBrandingSite, type BrandingSite } from "../fixtures/branding-page.ts";
import { createHarness, type Harness } from "../helpers/harness.ts";
import { startFakeLlm, type FakeLlm } from "../llm/fake-llm.ts";
import { browserHarness, closeAndAssertNoChromium, scrape } from "./helpers.ts";

let site: BrandingSite;
beforeAll(() => {
  site = startBrandingSite();
});
afterAll(() => site.stop());

describe("branding without an LLM", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await browserHarness();
  });
  afterAll(async () => {
    await closeAndAssertNoChromium(h);
  });

  test("every deterministic field of the fixture page, exactly", async () => {
    const r = await scrape(h, { url: `${site.url}/`, formats: ["branding"] });
    expect(r.status).toBe(200);
    const b = r.body.data.branding;
    expect(r.body.data.warning).toBeUndefined();
    expect(r.body.data.metadata.engine).toBe("browser");
    expect(r.body.data.metadata.creditsUsed).toBe(1);
    expect(b.colorScheme).toBe("light");
    expect(b.brandName).toBe("Acme");
    expect(b.colors).toEqual(ACME.colors);
    expect(b.fonts).toEqual(ACME.fonts);
    expect(b.typography).toEqual(ACME.typography);
    expect(b.spacing).toEqual(ACME.spacing);
    expect(b.components).toEqual(ACME.components);
    expect(b.images).toEqual({
      logo: `${site.url}/logo.svg`,
      logoHref: `${site.url}/`,
      logoAlt: "Acme",
      favicon: `${site.url}/favicon.png`,
      ogImage: `${site.url}/og.png`,
    });
    expect(b.logo).toBe(`${site.url}/logo.svg`);
    expect(b.personality).toBeUndefined();
    expect(Object.keys(b).sort()).toEqual(["brandName", "colorScheme", "colors", "components", "fonts", "images", "logo", "spacing", "typography"]);
  });

  test("a page without colour tokens: colours from its elements, dark scheme, og:site_name, bare-HSL --destructive", async () => {
    const r = await scrape(h, { url: `${site.url}/dark`, formats: ["markdown", "branding"], onlyMainContent: false });
    expect(r.status).toBe(200);
    expect(r.body.data.markdown).toContain("Tools for night owls");
    const b = r.body.data.branding;
    expect(b.colorScheme).toBe("dark");
    expect(b.brandName).toBe("Nightowl");
    expect(b.colors).toEqual({
      background: "#0B0D12",
      primary: "#7C3AED",
      secondary: "#22C55E",
      accent: "#A78BFA",
      textPrimary: "#E6E6E6",
      link: "#A78BFA",
      error: "#EF4343",
    });
    expect(b.typography.fontFamilies).toEqual({ primary: "system-ui", heading: "system-ui" });
    expect(b.typography.fontSizes).toEqual({ h1: "48px", body: "18px" });
    expect(b.typography.fontWeights).toEqual({ h1: 800, body: 400 });
    expect(b.typography.lineHeights).toEqual({ heading: 1.6, body: 1.6 });
    expect(b.components.buttonPrimary).toEqual({ background: "#7C3AED", textColor: "#FFFFFF", borderRadius: "6px", shadow: "none" });
    expect(b.components.buttonSecondary).toEqual({ background: "transparent", textColor: "#E6E6E6", borderColor: "#22C55E", borderRadius: "6px", shadow: "none" });
    expect(b.images).toEqual({});
  });

  test("a URL that is a PDF: no branding, a warning, the document still scraped", async () => {
    const r = await scrape(h, { url: `${site.url}/pdf`, formats: ["markdown", "branding"] });
    expect(r.status).toBe(200);
    expect(r.body.data.markdown).toContain("Hello PDF");
    expect(r.body.data.branding).toBeUndefined();
    expect(r.body.data.warning).toContain("No branding was collected");
  });

  test("a PDF asked for a screenshot and branding: both warnings are kept", async () => {
    const r = await scrape(h, { url: `${site.url}/pdf`, formats: ["markdown", "screenshot", "branding"] });
    expect(r.status).toBe(200);
    expect(r.body.data.warning).toContain("No screenshot was taken");
    expect(r.body.data.warning).toContain("No branding was collected");
  });

  test("the official SDK's scrape with formats: ['branding']", async () => {
    const apiUrl = h.listen();
    const app = new Firecrawl({ apiKey: h.key, apiUrl });
    const doc = await app.scrape(`${site.url}/`, { formats: ["branding"] });
    expect(doc.branding?.colors?.primary).toBe("#1A73E8");
    expect(doc.branding?.typography?.fontFamilies).toEqual(ACME.typography.fontFamilies);
    expect(doc.branding?.images?.logo).toBe(`${site.url}/logo.svg`);
    expect(doc.metadata?.statusCode).toBe(200);
  });
});

describe("branding with the fake LLM", () => {
  let h: Harness;
  let llm: FakeLlm;
  beforeAll(async () => {
    llm = startFakeLlm();
    h = await browserHarness({ ollamaBaseUrl: llm.url, modelName: "test-model" });
  });
  afterAll(async () => {
    await closeAndAssertNoChromium(h);
    llm.stop();
  });

  test("personality from one call with the page as delimited data; deterministic fields unchanged", async () => {
    llm.reset();
    llm.script([{ content: '{"tone":"professional","energy":"medium","targetAudience":"software teams"}' }]);
    const r = await scrape(h, { url: `${site.url}/`, formats: ["branding"] });
    expect(r.status).toBe(200);
    const b = r.body.data.branding;
    expect(b.personality).toEqual({ tone: "professional", energy: "medium", targetAudience: "software teams" });
    expect(b.colors).toEqual(ACME.colors);
    expect(b.typography).toEqual(ACME.typography);
    const chats = llm.chats();
    expect(chats).toHaveLength(1);
    const [system, user] = chats[0]!.messages;
    expect(system!.content).toContain("untrusted data");
    expect(user!.content).toMatch(/<<<PAGE_CONTENT id=\w+ \(page\)>>>[\s\S]*Brand name: Acme[\s\S]*Build faster with Acme[\s\S]*<<<END_PAGE_CONTENT id=\w+>>>/);
    expect(chats[0]!.schema).toMatchObject({ required: ["tone", "energy", "targetAudience"] });
  });

  test("an LLM failure keeps the deterministic profile and adds a warning", async () => {
    llm.reset();
    llm.script([{ status: 500, error: "model crashed" }]);
    const r = await scrape(h, { url: `${site.url}/`, formats: ["branding"] });
    expect(r.status).toBe(200);
    expect(r.body.data.branding.colors.primary).toBe("#1A73E8");
    expect(r.body.data.branding.personality).toBeUndefined();
    expect(r.body.data.warning).toContain("Branding personality unavailable");
  });
});

test("a server without the browser refuses branding with a 400", async () => {
  const h = await createHarness({ browserEnabled: false });
  try {
    const r = await scrape(h, { url: `${site.url}/`, formats: ["branding"] });
    expect(r.status).toBe(400);
    expect(r.body.code).toBe("SCRAPE_BRANDING_NOT_SUPPORTED");
    expect(r.body.error).toContain("browser");
  } finally {
    await h.close();
  }
});

describe("derivation rules", () => {
  const snapshot = (over: Partial<BrandingSnapshot>): BrandingSnapshot => ({
    url: "https://acme.test/",
    title: "Pricing | Acme Cloud",
    bodyBackground: "",
    rootBackground: "",
    bodyColor: "#111111",
    colorSchemeProperty: "normal",
    cssVars: {},
    samples: [],
    logos: [],
    ...over,
  });

  test("brand name: og:site_name, then application-name, then logo alt, then the title's site part (not its page word)", () => {
    const logo = { kind: "img" as const, src: "https://acme.test/l.png", alt: "Acme Logo Inc", hints: "logo", inHeader: true, top: 0, width: 100, height: 30 };
    expect(deriveBranding(snapshot({ siteName: "Acme Site", applicationName: "Acme App", logos: [logo] })).brandName).toBe("Acme Site");
    expect(deriveBranding(snapshot({ applicationName: "Acme App", logos: [logo] })).brandName).toBe("Acme App");
    expect(deriveBranding(snapshot({ logos: [logo] })).brandName).toBe("Acme Logo Inc");
    expect(deriveBranding(snapshot({})).brandName).toBe("Acme Cloud");
    expect(nameFromTitle("Acme — Build faster")).toBe("Acme");
    // A logo's alt describes the picture: its brand without the word "logo" (it came back as "Acme logo").
    expect(deriveBranding(snapshot({ logos: [{ ...logo, alt: "Acme logo" }] })).brandName).toBe("Acme");
    for (const [alt, name] of [["Logo of Acme", "Acme"], ["Acme Corp – Home", "Acme Corp"], ["Logos Bank", "Logos Bank"], ["Acmehome", "Acmehome"], ["Logo", undefined]] as const) {
      expect([alt, nameFromLogoAlt(alt)]).toEqual([alt, name]);
    }
    expect(deriveBranding(snapshot({ logos: [{ ...logo, alt: "Logo" }] })).brandName).toBe("Acme Cloud"); // nothing named: the title's
  });

  test("custom properties: brand-primary beats primary, on-primary is not primary; unknown fields are absent", () => {
    const b = deriveBranding(
      snapshot({ cssVars: { "--primary": { value: "222 47% 11%", color: "#0F172A" }, "--brand-primary": { value: "#ff0000", color: "#FF0000" } } }),
    );
    expect(b.colors).toEqual({ background: "#FFFFFF", primary: "#FF0000", textPrimary: "#111111" });
    expect(b.colorScheme).toBe("light");
    const material = snapshot({
      cssVars: { "--md-sys-color-on-primary": { value: "#fff", color: "#FFFFFF" }, "--md-sys-color-primary": { value: "#6750a4", color: "#6750A4" } },
    });
    expect(deriveBranding(material).colors.primary).toBe("#6750A4");
    expect(deriveBranding(snapshot({ colorSchemeProperty: "dark" })).colorScheme).toBe("dark");
    expect(deriveBranding(snapshot({ bodyBackground: "#00000080" })).colors.background).toBe("#7F7F7F");
  });

  test("helpers", () => {
    expect(fontStack('"JetBrains Mono", ui-monospace, monospace')).toEqual(["JetBrains Mono", "ui-monospace", "monospace"]);
    expect(baseUnit([8, 16, 24, 32, 64])).toBe(8);
    expect(baseUnit([12, 8, 24, 64, 32, 16])).toBe(4);
    expect(baseUnit([7, 13])).toBeUndefined();
    expect(isChromatic("#1A73E8")).toBe(true);
    expect(isChromatic("#DADCE0")).toBe(false);
    expect(isChromatic("#FFFFFF")).toBe(false);
    expect(isChromatic("#1A73E800")).toBe(false);
  });
});
