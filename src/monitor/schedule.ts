/**
 * @module monitor/schedule
 * A monitor's schedule, always stored as a five-field cron expression (minute hour day month weekday) in an IANA
 * time zone. The SDK lets a caller give `text` instead ("hourly", "daily at 9:00", "every 15 minutes", "weekly on
 * monday at 8:30"); it is turned into cron here, and the answer always carries the cron (as upstream's). Cron
 * expressions are checked by croner, the scheduler that runs them; seconds fields are refused (a minute is the
 * finest step).
 */
import { Cron } from "croner";
import type { MonitorScheduleInput } from "../api/monitor.ts";
import { BadRequestError } from "../errors.ts";

/** A stored schedule. */
export interface MonitorSchedule {
  cron: string;
  text?: string;
  timezone: string;
}

const DAYS = ["sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"];

/** "9", "9:30", "9pm", "21:05" → [minute, hour]; undefined when it is not a time of day. */
function timeOfDay(s: string): [number, number] | undefined {
  const m = /^(\d{1,2})(?::(\d{2}))?\s*(am|pm)?$/.exec(s.trim());
  if (!m) return undefined;
  let hour = Number(m[1]);
  const minute = m[2] === undefined ? 0 : Number(m[2]);
  if (m[3] === "pm" && hour < 12) hour += 12;
  if (m[3] === "am" && hour === 12) hour = 0;
  return hour <= 23 && minute <= 59 ? [minute, hour] : undefined;
}

/** The cron of a schedule written in words; undefined when the words are not understood. */
export function cronFromText(text: string): string | undefined {
  const s = text.trim().toLowerCase().replace(/\s+/g, " ");
  const simple: Record<string, string> = {
    hourly: "0 * * * *", "every hour": "0 * * * *",
    daily: "0 0 * * *", "every day": "0 0 * * *",
    weekly: "0 0 * * 1", "every week": "0 0 * * 1",
    monthly: "0 0 1 * *", "every month": "0 0 1 * *",
  };
  if (simple[s]) return simple[s];
  // Only steps that divide the hour or the day evenly: cron's */45 fires at :00 and :45, which is not "every 45".
  // No "every N days" past 1: the day-of-month step restarts each month (`*/2` runs on the 31st and then the 1st),
  // and a stored schedule is a cron alone, so nothing else could keep the count across months.
  let m = /^every (\d{1,3}) (minute|hour|day)s?$/.exec(s);
  if (m) {
    const n = Number(m[1]);
    if (m[2] === "minute" && n >= 1 && 60 % n === 0) return n === 60 ? "0 * * * *" : `*/${n} * * * *`;
    if (m[2] === "hour" && n >= 1 && 24 % n === 0) return n === 24 ? "0 0 * * *" : `0 */${n} * * *`;
    if (m[2] === "day" && n === 1) return "0 0 * * *";
    return undefined;
  }
  m = /^(?:daily|every day) at (.+)$/.exec(s);
  if (m) {
    const t = timeOfDay(m[1]!);
    return t ? `${t[0]} ${t[1]} * * *` : undefined;
  }
  m = /^(?:weekly on|every) (sunday|monday|tuesday|wednesday|thursday|friday|saturday)s?(?: at (.+))?$/.exec(s);
  if (m) {
    const t = m[2] === undefined ? [0, 0] : timeOfDay(m[2]);
    return t ? `${t[0]} ${t[1]} * * ${DAYS.indexOf(m[1]!)}` : undefined;
  }
  return undefined;
}

/** Shortest time between two checks of a monitor. */
export const MIN_INTERVAL_MS = 5 * 60 * 1000;

/** Checks and normalises a schedule; throws the 400 a client gets for a bad one. */
export function normalizeSchedule(input: MonitorScheduleInput): MonitorSchedule {
  const timezone = input.timezone ?? "UTC";
  // An empty zone would make croner use the server's own, which a caller cannot know.
  if (timezone.trim() === "") throw new BadRequestError("schedule.timezone must be an IANA time zone such as Europe/Berlin (default UTC).");
  let cron = input.cron?.trim();
  if (!cron) {
    if (!input.text) throw new BadRequestError("schedule needs cron (five fields: minute hour day month weekday) or text (such as \"hourly\" or \"daily at 9:00\").");
    cron = cronFromText(input.text);
    if (!cron) {
      throw new BadRequestError(
        `schedule.text ${JSON.stringify(input.text)} is not understood; use "hourly", "daily", "weekly", "monthly", "every N minutes" (N dividing 60), "every N hours" (N dividing 24), "every day", "daily at 9:00" or "weekly on monday at 8:30", or give schedule.cron.`,
      );
    }
  }
  if (cron.split(/\s+/).length !== 5) throw new BadRequestError(`schedule.cron ${JSON.stringify(cron)} must have five fields: minute hour day month weekday.`);
  let runs: Date[];
  try {
    const probe = new Cron(cron, { timezone, paused: true });
    runs = probe.nextRuns(12);
    probe.stop();
    if (runs.length === 0) throw new Error("it never runs");
  } catch (err) {
    throw new BadRequestError(`schedule ${JSON.stringify({ cron, timezone })} is not valid: ${(err as Error).message}`);
  }
  for (let i = 1; i < runs.length; i++) {
    if (runs[i]!.getTime() - runs[i - 1]!.getTime() < MIN_INTERVAL_MS) {
      throw new BadRequestError(`schedule ${JSON.stringify(cron)} checks more often than every ${MIN_INTERVAL_MS / 60_000} minutes, the shortest interval a monitor may have.`);
    }
  }
  return { cron, ...(input.text && !input.cron ? { text: input.text } : {}), timezone };
}

/** A month, for `estimatedCreditsPerMonth`: 30 days (an hourly schedule runs 720 times in it, a daily one 30). */
const MONTH_MS = 30 * 24 * 60 * 60 * 1000;
/** How far ahead runs are counted: a year, so that a schedule rarer than monthly counts at its average. */
const YEAR_MS = 365 * 24 * 60 * 60 * 1000;

/**
 * Runs of a schedule in a month from `from`, for `estimatedCreditsPerMonth`, on average over the next year: counted
 * up to 50 runs, then extrapolated from the time those took (a listing of 50 monitors must not walk croner thousands
 * of times each). A fraction for schedules rarer than monthly: counting only the next 30 days said 0 for a schedule on
 * the 31st in November, or a quarterly one in most months, and 1 or 2 for one on the 1st depending on the day asked.
 */
export function runsPerMonth(schedule: MonitorSchedule, from = new Date()): number {
  const probe = new Cron(schedule.cron, { timezone: schedule.timezone, paused: true });
  const end = from.getTime() + YEAR_MS;
  let n = 0;
  let first = 0;
  let last = 0;
  let at: Date | null = from;
  while ((at = probe.nextRun(at)) && at.getTime() <= end) {
    if (n === 0) first = at.getTime();
    last = at.getTime();
    if (++n === 50) break;
  }
  probe.stop();
  // The rate between the first and the 50th run; fewer in a year: their number, a year's worth, per month.
  return n === 50 ? ((n - 1) * MONTH_MS) / Math.max(1, last - first) : (n * MONTH_MS) / YEAR_MS;
}

/** {@link runsPerMonth} per schedule, kept for the hour it was counted in (monitor views read it on every list). */
const runsThisHour = new Map<string, { hour: number; runs: number }>();
/** Distinct schedules kept; past that the cache starts over. */
const MAX_CACHED_SCHEDULES = 1_000;

/**
 * {@link runsPerMonth} from now, counted at most once an hour per schedule: a monitor listing computes it for every
 * monitor, 1–2 ms each on croner.
 */
export function estimatedRunsPerMonth(schedule: MonitorSchedule, now = Date.now()): number {
  const key = `${schedule.cron}\n${schedule.timezone}`;
  const hour = Math.floor(now / 3_600_000);
  const hit = runsThisHour.get(key);
  if (hit?.hour === hour) return hit.runs;
  if (runsThisHour.size >= MAX_CACHED_SCHEDULES) runsThisHour.clear();
  const runs = runsPerMonth(schedule, new Date(now));
  runsThisHour.set(key, { hour, runs });
  return runs;
}
