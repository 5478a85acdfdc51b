/**
 * The one wrapper every file tool shares: re-validate the input against the tool's valibot schema
 * (a hook may have replaced it), run, and turn anything thrown into an error result, so `execute`
 * keeps the Tool contract of never throwing.
 */
import type * as v from "valibot";
import type { ToolName } from "./names.ts";
import { toolJsonSchema, validateWith } from "./schemas.ts";
import { describeError, failure } from "./output.ts";
import type { Tool, ToolContext, ToolResult } from "./types.ts";

export interface ToolDefinition<I> {
  name: ToolName;
  description: string;
  schema: v.GenericSchema<unknown, I>;
  run(input: I, ctx: ToolContext): ToolResult | Promise<ToolResult>;
}

export function defineTool<I>(definition: ToolDefinition<I>): Tool {
  return {
    name: definition.name,
    description: definition.description,
    parameters: toolJsonSchema(definition.name),
    async execute(input, ctx) {
      const checked = validateWith(definition.schema, input);
      if (!checked.ok) return failure(`invalid input: ${checked.path}: ${checked.message}`);
      try {
        return await definition.run(checked.input, ctx);
      } catch (error) {
        return failure(`${definition.name} failed: ${describeError(error)}`);
      }
    },
  };
}
