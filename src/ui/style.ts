/**
 * Colour for the interactive session: on for a terminal, off under NO_COLOR (any non-empty value, per
 * no-color.org), TERM=dumb, or when the stream is not a terminal. Only SGR sequences the agent
 * writes itself; text from the model, tools and hooks is escaped before it is styled.
 */

export interface Style {
  readonly enabled: boolean;
  bold(text: string): string;
  dim(text: string): string;
  italic(text: string): string;
  accent(text: string): string;
  green(text: string): string;
  red(text: string): string;
  yellow(text: string): string;
  magenta(text: string): string;
  code(text: string): string;
}

const sgr = (open: string, close: string) => (text: string) => (text === "" ? text : `\x1b[${open}m${text}\x1b[${close}m`);

const COLOURED: Style = {
  enabled: true,
  bold: sgr("1", "22"),
  dim: sgr("2", "22"),
  italic: sgr("3", "23"),
  accent: sgr("36", "39"),
  green: sgr("32", "39"),
  red: sgr("31", "39"),
  yellow: sgr("33", "39"),
  magenta: sgr("35", "39"),
  code: sgr("33", "39"),
};

const same = (text: string): string => text;
const PLAIN: Style = { enabled: false, bold: same, dim: same, italic: same, accent: same, green: same, red: same, yellow: same, magenta: same, code: same };

export function chooseStyle(env: Readonly<Record<string, string>>, isTerminal: boolean): Style {
  return isTerminal && (env.NO_COLOR ?? "") === "" && env.TERM !== "dumb" ? COLOURED : PLAIN;
}

export const plainStyle = PLAIN;
