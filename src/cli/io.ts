/** Output sinks for command functions, so tests can capture what a command prints (the UI's TextOutput). */
export type { TextOutput as CliIO } from "../ui/output.ts";
