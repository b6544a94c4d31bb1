// The library API (`import { … } from "guild-bus"`): the same command layer the CLI calls, for scripts and hooks
// that would rather not spawn it. Every function takes the project root the CLI's --root names.
import { contextForCommand, loadContext } from "./bus/context.js";
import { Layout } from "./bus/layout.js";
import type { Answer } from "./commands/answer.js";
import { requestReview as deliverReviewRequest, type Requested, type ReviewParams } from "./commands/review.js";
import { gateStatuses, type StatusRow } from "./commands/status.js";
import { classifyModel, type FamilyAliases } from "./core/family.js";
import { evaluateGatePass, type GatePassInput } from "./core/gate-pass.js";
import type { ReviewBrokerOutput } from "./core/status.js";
import type { Family, GatePassReport } from "./spec/schemas.js";

export type { Answer, Family, FamilyAliases, GatePassInput, GatePassReport, Requested, ReviewBrokerOutput, ReviewParams, StatusRow };

/**
 * Request a review of `params.artifact` (a path inside `root`) at gate `params.gate`, as `guild-bus review` does
 * without --wait: the request is written and the running workers (`guild-bus up`) take it from there. A request the
 * bus would refuse is answered `{ ok: false, error }` before anything is written. Resolves once both files are durable;
 * `idle` says when no broker runs for the project (nothing moves until one does).
 */
export function requestReview(root: string, params: ReviewParams): Promise<Answer<Requested>> {
  return deliverReviewRequest(new Layout(root), params);
}

/**
 * One gate's state as `guild-bus status <run> <gate> --json` prints it (its `next` step and `exit_code` included);
 * throws, as that command refuses, when the gate does not exist or the settings have problems (a gate judged on
 * defaults standing in for them could read otherwise).
 */
export function gateStatus(root: string, runId: string, gate: string): StatusRow {
  const answer = gateStatuses(contextForCommand(loadContext(new Layout(root))), { run: runId, gate });
  if (!answer.ok) throw new Error(answer.error);
  return answer.rows[0]!;
}

/**
 * The checksum-bound five-condition gate pass of `guild-bus verify-gate-pass`, on the result text (null when the
 * result file is missing or unreadable: the gate fails) and the artifact bytes. Pure: no file is read.
 */
export function verifyGatePass(input: Extract<GatePassInput, { artifactBytes: Uint8Array }>): GatePassReport {
  return evaluateGatePass(input);
}

/** The model family a model id belongs to ("unknown" when none or several match), as `guild-bus family` says. */
export function classifyFamily(model: string, aliases?: FamilyAliases): Family {
  return classifyModel(model, aliases);
}
