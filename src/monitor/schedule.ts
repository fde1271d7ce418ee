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
    "every minute": "* * * * *",
  };
  if (simple[s]) return simple[s];
  let m = /^every (\d{1,3}) (minute|hour|day)s?$/.exec(s);
  if (m) {
    const n = Number(m[1]);
    if (m[2] === "minute" && n >= 1 && n <= 59) return `*/${n} * * * *`;
    if (m[2] === "hour" && n >= 1 && n <= 23) return `0 */${n} * * *`;
    if (m[2] === "day" && n >= 1 && n <= 31) return `0 0 */${n} * *`;
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

/** Checks and normalises a schedule; throws the 400 a client gets for a bad one. */
export function normalizeSchedule(input: MonitorScheduleInput): MonitorSchedule {
  const timezone = input.timezone ?? "UTC";
  let cron = input.cron?.trim();
  if (!cron) {
    if (!input.text) throw new BadRequestError("schedule needs cron (five fields: minute hour day month weekday) or text (such as \"hourly\" or \"daily at 9:00\").");
    cron = cronFromText(input.text);
    if (!cron) {
      throw new BadRequestError(
        `schedule.text ${JSON.stringify(input.text)} is not understood; use "hourly", "daily", "weekly", "monthly", "every N minutes|hours|days", "daily at 9:00" or "weekly on monday at 8:30", or give schedule.cron.`,
      );
    }
  }
  if (cron.split(/\s+/).length !== 5) throw new BadRequestError(`schedule.cron ${JSON.stringify(cron)} must have five fields: minute hour day month weekday.`);
  try {
    const probe = new Cron(cron, { timezone, paused: true });
    const next = probe.nextRun();
    probe.stop();
    if (!next) throw new Error("it never runs");
  } catch (err) {
    throw new BadRequestError(`schedule ${JSON.stringify({ cron, timezone })} is not valid: ${(err as Error).message}`);
  }
  return { cron, ...(input.text && !input.cron ? { text: input.text } : {}), timezone };
}

/** The next run of a schedule after `from`, or undefined. */
export function nextRun(schedule: MonitorSchedule, from = new Date()): Date | undefined {
  const probe = new Cron(schedule.cron, { timezone: schedule.timezone, paused: true });
  const next = probe.nextRun(from) ?? undefined;
  probe.stop();
  return next;
}

/**
 * Runs of a schedule in 30 days from `from`, for `estimatedCreditsPerMonth`: counted up to 2,000 runs, then
 * extrapolated from the time those took (an every-minute schedule is not walked 43,200 times per request).
 */
export function runsPerMonth(schedule: MonitorSchedule, from = new Date()): number {
  const probe = new Cron(schedule.cron, { timezone: schedule.timezone, paused: true });
  const spanMs = 30 * 24 * 60 * 60 * 1000;
  const end = from.getTime() + spanMs;
  let n = 0;
  let at: Date | null = from;
  let last = from.getTime();
  while ((at = probe.nextRun(at)) && at.getTime() <= end) {
    n++;
    last = at.getTime();
    if (n === 2_000) break;
  }
  probe.stop();
  return n === 2_000 ? Math.round((n * spanMs) / Math.max(1, last - from.getTime())) : n;
}
