/**
 * @module api/actions
 * Browser `actions` (api-v2.md §6.6): a discriminated union on `type`, each object strict, defaults as
 * upstream. The limits that span several fields (count, wait budget, wait XOR) live in `refine.ts`.
 */
import { t } from "elysia";
import type { Static } from "@sinclair/typebox";
import { strictObject, oneOf, Int } from "./common.ts";
import { QualityField, ViewportSchema } from "./formats.ts";

/** Most actions one request may carry. */
export const MAX_ACTIONS = 50;
/** Budget for `waitFor` plus all wait actions, in ms. */
export const MAX_TOTAL_WAIT_MS = 60_000;
/** What a selector wait counts towards {@link MAX_TOTAL_WAIT_MS}. */
export const SELECTOR_WAIT_COST_MS = 1_000;

/** What a wait action counts towards {@link MAX_TOTAL_WAIT_MS} (and an interact replay's time): its milliseconds, or a selector wait's cost. */
export function waitCostMs(a: { milliseconds?: number; selector?: string }): number {
  return a.milliseconds ?? (a.selector !== undefined ? SELECTOR_WAIT_COST_MS : 0);
}

/** The time a request asks to wait: `waitFor` plus its wait actions, each at {@link waitCostMs}. */
export function totalWaitMs(waitForMs: number, actions: readonly { type: string; milliseconds?: number; selector?: string }[]): number {
  return actions.reduce((sum, a) => sum + (a.type === "wait" ? waitCostMs(a) : 0), waitForMs);
}

/** Paper formats of the `pdf` action. */
export const PDF_FORMATS = ["A0", "A1", "A2", "A3", "A4", "A5", "A6", "Letter", "Legal", "Tabloid", "Ledger"] as const;

export const WaitActionSchema = strictObject({
  type: t.Literal("wait"),
  milliseconds: t.Optional(Int({ minimum: 1 })),
  selector: t.Optional(t.String({ minLength: 1 })),
});
export const ClickActionSchema = strictObject({
  type: t.Literal("click"),
  selector: t.String(),
  all: t.Optional(t.Boolean({ default: false })),
});
export const ScreenshotActionSchema = strictObject({
  type: t.Literal("screenshot"),
  fullPage: t.Optional(t.Boolean({ default: false })),
  quality: t.Optional(QualityField),
  viewport: t.Optional(ViewportSchema),
});
export const WriteActionSchema = strictObject({ type: t.Literal("write"), text: t.String() });
export const PressActionSchema = strictObject({ type: t.Literal("press"), key: t.String() });
export const ScrollActionSchema = strictObject({
  type: t.Literal("scroll"),
  direction: t.Optional(oneOf(["up", "down"], { default: "down" })),
  selector: t.Optional(t.String()),
});
export const ScrapeActionSchema = strictObject({ type: t.Literal("scrape") });
export const ExecuteJavascriptActionSchema = strictObject({ type: t.Literal("executeJavascript"), script: t.String() });
export const PdfActionSchema = strictObject({
  type: t.Literal("pdf"),
  landscape: t.Optional(t.Boolean({ default: false })),
  scale: t.Optional(t.Number({ exclusiveMinimum: 0, default: 1 })),
  format: t.Optional(oneOf(PDF_FORMATS, { default: "Letter" })),
});

/** One action, as sent. */
export const ActionSchema = t.Union([
  WaitActionSchema,
  ClickActionSchema,
  ScreenshotActionSchema,
  WriteActionSchema,
  PressActionSchema,
  ScrollActionSchema,
  ScrapeActionSchema,
  ExecuteJavascriptActionSchema,
  PdfActionSchema,
]);

/** The `actions` array (count bound is a refinement, so its message can match upstream). */
export const ActionsField = t.Array(ActionSchema);

export type WaitAction = Static<typeof WaitActionSchema>;
export type ClickAction = Static<typeof ClickActionSchema> & { all: boolean };
export type ScreenshotAction = Static<typeof ScreenshotActionSchema> & { fullPage: boolean };
export type WriteAction = Static<typeof WriteActionSchema>;
export type PressAction = Static<typeof PressActionSchema>;
export type ScrollAction = Static<typeof ScrollActionSchema> & { direction: "up" | "down" };
export type ScrapeAction = Static<typeof ScrapeActionSchema>;
export type ExecuteJavascriptAction = Static<typeof ExecuteJavascriptActionSchema>;
export type PdfAction = Static<typeof PdfActionSchema> & { landscape: boolean; scale: number; format: (typeof PDF_FORMATS)[number] };

/** An action after defaults. Discriminate on `type`. */
export type Action =
  | WaitAction
  | ClickAction
  | ScreenshotAction
  | WriteAction
  | PressAction
  | ScrollAction
  | ScrapeAction
  | ExecuteJavascriptAction
  | PdfAction;
