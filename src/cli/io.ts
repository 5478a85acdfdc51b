/** Output sinks for command functions, so tests can capture what a command prints. */
export interface CliIO {
  out(text: string): void;
  err(text: string): void;
}
