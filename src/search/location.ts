/**
 * @module search/location
 * A search's free-text `location` ("Germany", "Berlin, Germany", "San Francisco,California,United States", "de") as
 * the country SearXNG's `language` can carry (`en-DE`). SearXNG has no place finer than a country, so the last
 * comma-separated part is read as a country's English name or code; a place that names no country is ignored.
 */
import { countryCode } from "../api/countries.ts";

/** Other names people and SDK examples use for a country, lower case. */
const ALIASES: Record<string, string> = {
  usa: "US",
  "united states of america": "US",
  america: "US",
  "great britain": "GB",
  britain: "GB",
  england: "GB",
  scotland: "GB",
  wales: "GB",
  "south korea": "KR",
  korea: "KR",
  "north korea": "KP",
  russia: "RU",
  "czech republic": "CZ",
  holland: "NL",
  "the netherlands": "NL",
  "ivory coast": "CI",
  vietnam: "VN",
  iran: "IR",
  syria: "SY",
  taiwan: "TW",
  "hong kong": "HK",
  macau: "MO",
  laos: "LA",
  bolivia: "BO",
  venezuela: "VE",
  tanzania: "TZ",
  moldova: "MD",
  uae: "AE",
  turkey: "TR",
};

let byName: Map<string, string> | undefined;

/** English country names (from the runtime's ICU data) by lower-case name, built on first use. */
function names(): Map<string, string> {
  if (byName) return byName;
  byName = new Map(Object.entries(ALIASES));
  const display = new Intl.DisplayNames(["en"], { type: "region" });
  for (let a = 65; a <= 90; a++) {
    for (let b = 65; b <= 90; b++) {
      const code = countryCode(String.fromCharCode(a, b));
      const name = code ? display.of(code) : undefined;
      if (code && name && !byName.has(name.toLowerCase())) byName.set(name.toLowerCase(), code);
    }
  }
  return byName;
}

/** The ISO country a search `location` names, or undefined. */
export function countryOfLocation(location: string | undefined): string | undefined {
  const last = location?.split(",").pop()?.trim().toLowerCase();
  if (!last) return undefined;
  if (last.length === 2) return countryCode(last);
  return names().get(last) ?? names().get(last.replace(/^the\s+/, ""));
}
