/**
 * @module search/location
 * A search's free-text `location` ("Germany", "Berlin, Germany", "San Francisco,California,United States", "de") as
 * the country SearXNG's `language` can carry (`en-DE`). SearXNG has no place finer than a country, so the last
 * comma-separated part is read as a country's English name or code; a place that names no country is ignored.
 * After a city, a US state's name means the US ("Austin, Texas"); two names stay ambiguous and are ignored: a
 * two-letter last part ("San Francisco, CA" is not Canada) and Georgia ("Atlanta, Georgia" is not the country).
 */
import { COUNTRY_CODES, countryCode } from "../api/countries.ts";

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
  for (const code of COUNTRY_CODES) {
    const name = display.of(code);
    if (name && !byName.has(name.toLowerCase())) byName.set(name.toLowerCase(), code);
  }
  return byName;
}

/** US states by name, lower case (read after a city). */
const US_STATES = new Set(
  ("alabama alaska arizona arkansas california colorado connecticut delaware florida hawaii idaho illinois indiana iowa kansas kentucky " +
    "louisiana maine maryland massachusetts michigan minnesota mississippi missouri montana nebraska nevada ohio oklahoma oregon " +
    "pennsylvania tennessee texas utah vermont virginia washington wisconsin wyoming")
    .split(" ")
    .concat(["new hampshire", "new jersey", "new mexico", "new york", "north carolina", "north dakota", "rhode island", "south carolina", "south dakota", "west virginia", "district of columbia"]),
);

/** The ISO country a search `location` names, or undefined. */
export function countryOfLocation(location: string | undefined): string | undefined {
  const parts = (location ?? "").split(",").map((p) => p.trim().toLowerCase()).filter(Boolean);
  const last = parts.at(-1);
  if (!last) return undefined;
  if (last.length === 2) return parts.length === 1 ? countryCode(last) : undefined;
  if (parts.length > 1 && last === "georgia") return undefined;
  if (parts.length > 1 && US_STATES.has(last)) return "US";
  return names().get(last) ?? names().get(last.replace(/^the\s+/, ""));
}
