/**
 * @module engines/browser/action-error
 * The error of an action that could not be performed (`SCRAPE_ACTION_ERROR`), naming the action's index and type.
 * Its own module so that the action runner (actions.ts) and the script runner (script-navigation.ts) share it.
 */
import { CrawlboxError } from "../../errors.ts";

/**
 * An action could not be performed: 500 as upstream's transportable errors, 400 when the action itself is
 * malformed in a way only the browser can tell (a key it does not know, a selector it cannot parse), or 409 when the
 * page's own navigation kept a script from running (the page, not crawlbox, moved on: script-navigation.ts).
 */
export class ActionError extends CrawlboxError {
  constructor(index: number, type: string, reason: string, cause?: unknown, status: 400 | 409 | 500 = 500) {
    super("SCRAPE_ACTION_ERROR", status, `Action ${index} (${type}) failed: ${reason}`, { details: { index, type }, cause });
  }
}
