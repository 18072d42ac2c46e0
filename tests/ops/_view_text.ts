// The view op's text as the model reads it, for tests and benchmarks that compare or search it:
// viewResult's guide with its next steps written as tool calls (as the MCP adapter does).

import { renderGuide, toolCallSyntax } from "../../lib/core/next_step.ts";
import type { Locations } from "../../lib/ops/location.ts";
import type { Session } from "../../lib/ops/session.ts";
import { type ViewAccel, type ViewArgs, viewResult } from "../../lib/ops/view.ts";

/** viewResult's text, its suggested calls written as tool calls. */
export async function viewText(
  locations: Locations,
  session: Session,
  args: ViewArgs,
  accel: ViewAccel = {},
): Promise<string> {
  return renderGuide(await viewResult(locations, session, args, accel), toolCallSyntax);
}
