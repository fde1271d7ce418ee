/**
 * @module branding/fonts
 * Font stacks as the `branding` format reports them: `typography.fontStacks` keeps a computed `font-family` list
 * whole, and `fonts` / `typography.fontFamilies` name the first *typeface* in it. CSS's generic keywords
 * (`sans-serif`, `system-ui`, `ui-sans-serif`, `-apple-system` …) and emoji fonts name no typeface, and Tailwind's
 * default stack was reported as `fonts: [{family: "ui-sans-serif"}]`.
 */

/**
 * Names in a stack that are not a typeface of the site's choosing: CSS generic families (CSS Fonts 4 §4.2), the
 * platforms' aliases of `system-ui`, and the emoji fonts stacks end with. Lower case.
 */
const GENERIC_FAMILIES = new Set([
  "serif", "sans-serif", "monospace", "cursive", "fantasy", "math", "emoji", "fangsong", "system-ui", "ui-serif", "ui-sans-serif",
  "ui-monospace", "ui-rounded", "-apple-system", "blinkmacsystemfont", "apple color emoji", "segoe ui emoji", "segoe ui symbol",
  "noto color emoji", "android emoji", "emojione color", "twemoji mozilla", "inherit", "initial", "unset",
]);
/** The names that mean "the platform's interface font": a stack of only generic names with one of these is `system-ui`. */
const SYSTEM_UI_ALIASES = new Set(["system-ui", "-apple-system", "blinkmacsystemfont", "ui-sans-serif"]);

/** A computed `font-family` list as names without quotes. */
export function fontStack(fontFamily: string): string[] {
  return (fontFamily.match(/"[^"]*"|'[^']*'|[^,]+/g) ?? []).map((f) => f.trim().replace(/^["']|["']$/g, "").trim()).filter(Boolean);
}

/**
 * The typeface a stack names: its first family that is not generic (`"Typeset Text", -apple-system, …` →
 * `Typeset Text`; `system-ui, -apple-system, "Segoe UI", Roboto` → `Segoe UI`); for a stack of generic names only,
 * `system-ui` when it asks for the platform's interface font (`ui-sans-serif, system-ui, sans-serif`), else none
 * (`serif` alone is the browser's choice, not a typeface).
 */
export function familyOf(stack: readonly string[]): string | undefined {
  const named = stack.find((f) => !GENERIC_FAMILIES.has(f.toLowerCase()));
  if (named) return named;
  return stack.some((f) => SYSTEM_UI_ALIASES.has(f.toLowerCase())) ? "system-ui" : undefined;
}
