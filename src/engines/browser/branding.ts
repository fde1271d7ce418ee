/**
 * @module engines/browser/branding
 * What the `branding` format reads from a rendered page: one `page.evaluate` that samples computed styles
 * (buttons, links, headings, body text, inputs, code, sections), the page's CSS custom properties, logo
 * candidates, the favicon and the page's meta tags. The in-page part only *observes*: colours normalised to
 * hex, lengths to px numbers (that code, run inside the page, is branding-in-page.ts). Deciding which colour is
 * "primary" is the renderer's job (src/branding/derive.ts, served by plugins/formats/branding.ts), a pure function
 * of this snapshot, so it is testable without a browser.
 *
 * The snapshot is bounded (a fixed number of samples per kind, truncated texts and SVG markup) so a huge page
 * cannot make it large, and {@link collectBranding} has its own time limit: a page whose collection fails or
 * takes too long yields `{ error }`, which the renderer turns into a warning (the scrape itself succeeds).
 */
import type { Page as PuppeteerPage } from "puppeteer-core";
import { snapshotInPage } from "./branding-in-page.ts";
import { isolatedRealm } from "./page-reads.ts";

/** What kind of element a style sample was taken from. */
export type SampleKind = "body" | "button" | "link" | "heading" | "text" | "small" | "input" | "code" | "section" | "status";

/** Computed style of one visible element. Colours are `#RRGGBB`, `#RRGGBBAA`, or `""` for fully transparent. */
export interface StyleSample {
  kind: SampleKind;
  tag: string;
  /** Heading level (1–6) for headings. */
  level?: number;
  /** Own `class` and `id`, lower-cased (hints such as `btn-primary`, `outline`, `success`). */
  hints: string;
  color: string;
  background: string;
  /** Top border colour when the top border is visible (width > 0, style not `none`), else `""`. */
  borderColor: string;
  /** Top-left radius as computed (`8px`). */
  borderRadius: string;
  boxShadow: string;
  fontFamily: string;
  /** px */
  fontSize: number;
  fontWeight: number;
  /** px, or null for `normal`. */
  lineHeight: number | null;
  /** px: top, right, bottom, left. */
  padding: [number, number, number, number];
  /** px: top, bottom. */
  margin: [number, number];
  /** Visible area in CSS px² (weights the sample). */
  area: number;
  /** Length of the element's own text (weights text samples). */
  textLength: number;
}

/** An image or inline SVG that might be the logo. */
export interface LogoCandidate {
  kind: "img" | "svg";
  /** Absolute URL (img) or the SVG markup (svg, at most {@link MAX_SVG_CHARS} characters). */
  src: string;
  alt: string;
  /** `class`/`id`/`src` of the element, its parent and its link, lower-cased. */
  hints: string;
  /** Absolute `href` of the enclosing link, if any. */
  href?: string;
  /** Inside `header`, `nav` or `[role=banner]`. */
  inHeader: boolean;
  top: number;
  width: number;
  height: number;
}

/** The raw observations of one rendered page. */
export interface BrandingSnapshot {
  url: string;
  title: string;
  /** Background of `body`, then of `html` (hex or `""`). */
  bodyBackground: string;
  rootBackground: string;
  bodyColor: string;
  /** The `color-scheme` computed on the root element (`normal`, `light`, `dark`, `light dark`). */
  colorSchemeProperty: string;
  /** Custom properties of the root element: name → computed value, and its hex when the value is a colour. */
  cssVars: Record<string, { value: string; color?: string }>;
  samples: StyleSample[];
  logos: LogoCandidate[];
  /**
   * Every property (longhand, not custom) that some style of the page sets: a rule of its style sheets, a `style`
   * attribute, a presentational attribute (`<font color>`, `<body text>` …). A sample's value for a property the page
   * sets nowhere is the browser's default (Times New Roman, black text), not the brand's. Absent when not known (a
   * cross-origin sheet, whose rules cannot be read, or more than {@link MAX_STYLED_ELEMENTS_READ} `style` attributes).
   */
  declaredProperties?: string[];
  /** Absolute URLs. */
  favicon?: string;
  ogImage?: string;
  siteName?: string;
  applicationName?: string;
  themeColor?: string;
}

/** What the engine stores in `artifacts.branding`. */
export type BrandingArtifact = BrandingSnapshot | { error: string };

/** Longest inline SVG kept as a logo candidate. */
export const MAX_SVG_CHARS = 30_000;
/** Elements with a `style` attribute read for {@link BrandingSnapshot.declaredProperties}; past it, they are not known. */
export const MAX_STYLED_ELEMENTS_READ = 10_000;
/** Longest time the collection may take before the scrape goes on without it. */
export const BRANDING_COLLECT_TIMEOUT_MS = 5_000;

/** Samples kept per kind (the first visible ones in document order). */
const SAMPLE_LIMITS: Record<SampleKind, number> = {
  body: 1,
  button: 40,
  link: 80,
  heading: 30,
  text: 60,
  small: 20,
  input: 20,
  code: 10,
  section: 40,
  status: 20,
};

/**
 * Collects the snapshot of `page`, within `timeoutMs` (at most {@link BRANDING_COLLECT_TIMEOUT_MS}).
 * Never throws: a failure is `{ error }`.
 */
export async function collectBranding(page: PuppeteerPage, timeoutMs = BRANDING_COLLECT_TIMEOUT_MS): Promise<BrandingArtifact> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const limit = Math.max(0, Math.min(timeoutMs, BRANDING_COLLECT_TIMEOUT_MS));
  try {
    return await Promise.race([
      // In the isolated world: the page cannot redefine the DOM methods and getters the snapshot reads (a getter
      // answering a 250 MB string came back whole from the page's own world), nor what bounds their results.
      isolatedRealm(page).evaluate(snapshotInPage, SAMPLE_LIMITS, MAX_SVG_CHARS, MAX_STYLED_ELEMENTS_READ),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`branding collection took longer than ${limit} ms`)), limit);
      }),
    ]);
  } catch (err) {
    return { error: (err instanceof Error ? err.message : String(err)).split("\n")[0]!.slice(0, 300) };
  } finally {
    clearTimeout(timer);
  }
}
