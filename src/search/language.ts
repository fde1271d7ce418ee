/**
 * @module search/language
 * The `language` SearXNG is asked in, from a search's `lang` and country. SearXNG takes a language code with an
 * optional region (`en`, `en-GB`) and answers anything else with a 400 (its `VALID_LANGUAGE_CODE`,
 * searx/webadapter.py), which a client would see as a 500 `SEARCH_BACKEND_ERROR`. Clients send what Google's `hl`
 * takes (`en-GB`, `pt-BR`, `zh-CN`, `EN`, `en_GB`), so the value is rebuilt, never passed through.
 */

/** SearXNG's own pattern for `language` (searx/webadapter.py `VALID_LANGUAGE_CODE`). */
const SEARXNG_LANGUAGE = /^[a-z]{2,3}(-[a-zA-Z]{2})?$/;

/** The countries a search names, by how sure they are. */
export interface LanguageCountries {
  /** Given by the caller (`country`, or a `location` that names a country): replaces a region `lang` carries. */
  explicit?: string;
  /** The default (`us` when neither `country` nor `location` was given): used only when `lang` carries no region. */
  fallback?: string;
}

/**
 * SearXNG's `language` for `lang` (`en`, `en-GB`, `EN`, `en_GB`) and `countries`: the language part lower-cased,
 * with the caller's country, else the region `lang` carries, else the default country. A combination SearXNG would
 * refuse falls back to the bare language; undefined when even that is no language code (send none: the instance's
 * default applies).
 *
 * @example searxngLanguage("pt-BR", {}) === "pt-BR"; searxngLanguage("EN", { fallback: "us" }) === "en-US"
 */
export function searxngLanguage(lang: string, countries: LanguageCountries): string | undefined {
  const [first = "", second] = lang.trim().split(/[-_]/);
  const language = first.toLowerCase();
  const region = second !== undefined && /^[a-z]{2}$/i.test(second) ? second : undefined;
  const country = countries.explicit ?? region ?? countries.fallback;
  const withCountry = country ? `${language}-${country.toUpperCase()}` : language;
  if (SEARXNG_LANGUAGE.test(withCountry)) return withCountry;
  return SEARXNG_LANGUAGE.test(language) ? language : undefined;
}
