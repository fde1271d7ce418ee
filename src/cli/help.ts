/**
 * @module cli/help
 * The text of `crawlbox --help`. Kept beside the commands so that it changes with them.
 */

/** Usage text printed by `--help` and on usage errors. */
export const USAGE = `crawlbox: a self-hosted web scraper that speaks the Firecrawl /v2 API

Usage:
  crawlbox [serve]                      Start the HTTP server (default command)
  crawlbox scrape <url> [options]       Scrape one page and print it to stdout
      --format markdown|html|rawHtml|links|json   What to print (default: markdown; json = the whole document)
      --full-page                        Keep the whole page (onlyMainContent: false)
      --timeout <ms>                     Deadline for the page (default CRAWLBOX_DEFAULT_TIMEOUT_MS, 30000)
  crawlbox keys create [--name <name>] [--quota <credits>]
                                        Create an API key; it is printed once and stored only as a hash
  crawlbox keys list                    List keys (id, prefix, name, created, revoked, quota)
  crawlbox keys quota <id> --quota <credits>
                                        Set a key's credit quota, a lifetime total (0 = unlimited); usage is kept
  crawlbox keys revoke <id>             Revoke a key by its id (key_…)
  crawlbox --help | -h                  This help
  crawlbox --version | -v               Print the version

Configuration comes from environment variables (see README.md and docs/configuration.md), e.g.
  PORT=3002 HOST=0.0.0.0 CRAWLBOX_DATA_DIR=./data CRAWLBOX_API_KEYS=key1,key2 CRAWLBOX_AUTH=on
`;
