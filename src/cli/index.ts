/**
 * cac wiring only: parses argv, then hands each command to its module (imported lazily so a command
 * loads only what it uses). Returns the exit status; `src/main.ts` exits with it.
 */
import { cac } from "cac";
import { AgentError } from "../util/errors.ts";
import type { Runtime } from "../runtime/types.ts";
import type { CliIO } from "./io.ts";
import { resolvePath } from "../util/path-utils.ts";

type Options = Record<string, unknown>;

/**
 * cac's argument parser drops a bare `-`, so `agent run -` (prompt from stdin) would look like no
 * prompt at all: it is swapped for this placeholder before parsing and swapped back after.
 */
const STDIN_ARG = "\u0000stdin";
const restoreDash = (value: string): string => (value === STDIN_ARG ? "-" : value);

/** Options `agent` itself (the interactive session) accepts; anything else is a usage error. */
const INTERACTIVE_OPTIONS = new Set([
  "--",
  "provider",
  "model",
  "baseUrl",
  "base-url",
  "script",
  "permissionMode",
  "permission-mode",
  "resume",
  "continue",
  "cwd",
  "help",
  "h",
  "version",
  "v",
  "pluginDir",
  "plugin-dir",
]);

const INTERACTIVE_HELP = [
  "  agent [--provider NAME] [--model M] [--base-url URL] [--script FILE] [--permission-mode MODE]",
  "        [--resume ID | --continue] [--cwd DIR] [--plugin-dir DIR]...",
  "",
  "  With no command, agent opens the interactive session: a prompt on the terminal, /help for its",
  "  commands, Ctrl-C to interrupt a turn, Ctrl-D to leave. It needs a terminal on stdin; in scripts",
  "  and pipes use `agent run`.",
].join("\n");

function stringOption(options: Options, key: string): string | undefined {
  const value = options[key];
  if (value === undefined || value === false) return undefined;
  if (Array.isArray(value)) return stringOption({ [key]: value[value.length - 1] }, key);
  if (value === true) throw new AgentError("usage", `--${key} needs a value`);
  return restoreDash(String(value));
}

function listOption(options: Options, key: string): string[] {
  const value = options[key];
  if (value === undefined || value === false) return [];
  const values = Array.isArray(value) ? value : [value];
  return values.map((item) => {
    if (item === true) throw new AgentError("usage", `--${key} needs a value`);
    return restoreDash(String(item));
  });
}

/** Extra sections of `agent hooks --help`: what each action does, the templates and the events. */
async function hooksHelpSections(): Promise<{ title: string; body: string }[]> {
  const [{ HOOK_TEMPLATES, TEMPLATE_SUMMARIES }, { CANONICAL_EVENTS }] = await Promise.all([import("../hooks/templates.ts"), import("../util/events.ts")]);
  const actions = [
    ["list [--json]", "every hook that would run here, with scope, form, dialect, event and source"],
    ["validate", "check every config file and hook without running anything (exit 1 on errors)"],
    ["test EVENT", "fire one synthetic EVENT at the hooks, no model (prompt hooks: --provider; exit 2 = deny/block)"],
    ["trust", "show and pin this project's hooks and settings so they may run"],
    ["init TEMPLATE", "install a ready-made hook (project, or user scope when run in $HOME)"],
    ["import --from AGENT", "translate Claude Code, Gemini CLI or Codex hooks into our config (--user, --dry-run)"],
  ];
  const width = Math.max(...actions.map(([name]) => (name ?? "").length));
  const names = Object.keys(HOOK_TEMPLATES).sort();
  const nameWidth = Math.max(...names.map((name) => name.length));
  return [
    { title: "Actions", body: actions.map(([name, text]) => `  ${(name ?? "").padEnd(width)}  ${text}`).join("\n") },
    { title: "Templates (agent hooks init NAME)", body: names.map((name) => `  ${name.padEnd(nameWidth)}  ${TEMPLATE_SUMMARIES[name] ?? ""}`).join("\n") },
    { title: "Events (agent hooks test EVENT)", body: `  ${CANONICAL_EVENTS.join(", ")}\n  (aliases such as PreToolUse or before_tool are accepted)` },
  ];
}

type Cli = ReturnType<typeof cac>;

/** What every command definition needs: the runtime, the output, the shared option readers, and where the chosen command's result goes. */
interface CliContext {
  readonly runtime: Runtime;
  readonly io: CliIO;
  readonly cwdOf: (options: Options) => string;
  readonly pluginDirsOf: (options: Options) => string[];
  readonly setResult: (result: Promise<number>) => void;
  readonly result: () => Promise<number> | undefined;
}

function cliContext(runtime: Runtime, io: CliIO): CliContext {
  let result: Promise<number> | undefined;
  const cwdOf = (options: Options): string => {
    const dir = stringOption(options, "cwd");
    if (dir === undefined) return runtime.cwd();
    const resolved = resolvePath(runtime.cwd(), dir);
    const real = runtime.fs.realpath(resolved);
    if (real === undefined || runtime.fs.stat(real)?.kind !== "dir") {
      throw new AgentError("usage", `--cwd: ${dir} is not a directory`);
    }
    return real;
  };
  // `--plugin-dir DIR` (repeatable; cac hands it over as `pluginDir`): each must be a directory.
  const pluginDirsOf = (options: Options): string[] =>
    listOption(options, "pluginDir").map((dir) => {
      const real = runtime.fs.realpath(resolvePath(runtime.cwd(), dir));
      if (real === undefined || runtime.fs.stat(real)?.kind !== "dir")
        throw new AgentError("usage", `--plugin-dir: ${dir} is not a directory`, { fix: "give the folder holding the plugin's .claude-plugin/plugin.json" });
      return real;
    });
  return { runtime, io, cwdOf, pluginDirsOf, setResult: (value) => (result = value), result: () => result };
}

/** `agent run`: its options, and the command module it hands them to. */
function defineRun(cli: Cli, ctx: CliContext): void {
  const { runtime, io } = ctx;
  cli
    .command("run [...prompt]", "Run one non-interactive session")
    .option("--provider <name>", "openai | anthropic | script")
    .option("--model <model>", "Model name")
    .option("--base-url <url>", "Provider base URL (Ollama, llama.cpp, vLLM, LM Studio…)")
    .option("--script <file>", "Script of assistant turns for --provider script")
    .option("--cwd <dir>", "Working directory")
    .option("--output-format <format>", "text | json | stream-json", { default: "text" })
    .option("--max-turns <n>", "Stop after N provider requests")
    .option("--max-context-tokens <n>", "Compact the conversation past N estimated tokens")
    .option("--allow <rule>", "Allow rule for this run, e.g. 'bash(git status*)' (repeatable)")
    .option("--permission-mode <mode>", "default | accept-edits | readonly | bypass")
    .option("--resume <id>", "Resume a session")
    .option("--continue", "Resume the most recent session of this project")
    .option("--trust", "Trust this project's hooks for this run only")
    .option("--no-hooks", "Disable every hook")
    .option("--no-session", "Write no session file")
    .option("--plugin-dir <dir>", "Load the Claude Code plugin in DIR for this run (repeatable)")
    .example(
      `cd hooks-examples/demo && agent run --provider script --script script.json --trust --permission-mode accept-edits --allow 'bash(ls*)' "Show me around"`,
    )
    .example(`agent run --provider openai --base-url http://127.0.0.1:11434 --model qwen2.5-coder "fix the tests"`)
    .action((prompt: string[], options: Options) => {
      ctx.setResult(
        import("./commands/run.ts").then((m) =>
          m.runRunCommand(runtime, io, {
            prompt: prompt.map(restoreDash),
            cwd: ctx.cwdOf(options),
            provider: stringOption(options, "provider"),
            model: stringOption(options, "model"),
            baseUrl: stringOption(options, "baseUrl"),
            script: stringOption(options, "script"),
            outputFormat: stringOption(options, "outputFormat") ?? "text",
            maxTurns: stringOption(options, "maxTurns"),
            maxContextTokens: stringOption(options, "maxContextTokens"),
            allow: listOption(options, "allow"),
            permissionMode: stringOption(options, "permissionMode"),
            resume: stringOption(options, "resume"),
            continue: options.continue === true,
            trust: options.trust === true,
            hooks: options.hooks !== false,
            session: options.session !== false,
            pluginDirs: ctx.pluginDirsOf(options),
          }),
        ),
      );
    });
}

/** `agent hooks ACTION`: which command module runs it, with which options. */
function hooksAction(ctx: CliContext, action: string, rest: string[], options: Options): Promise<number> {
  const { runtime, io } = ctx;
  const cwd = ctx.cwdOf(options);
  const json = options.json === true;
  const pluginDirs = ctx.pluginDirsOf(options);
  const providerFlags = {
    provider: stringOption(options, "provider"),
    script: stringOption(options, "script"),
    model: stringOption(options, "model"),
    baseUrl: stringOption(options, "baseUrl"),
  };
  switch (action) {
    case "list":
      return import("./commands/hooks-list.ts").then((m) => m.runHooksList(runtime, io, { cwd, json, pluginDirs }));
    case "validate":
      return import("./commands/hooks-validate.ts").then((m) => m.runHooksValidate(runtime, io, { cwd, pluginDirs }));
    case "test": {
      const cases = stringOption(options, "cases");
      if (cases !== undefined) {
        if (rest.length > 0)
          throw new AgentError("usage", `--cases runs a suite: unexpected argument "${rest[0]}"`, { fix: "agent hooks test --cases FILE [--json]" });
        return import("./commands/hooks-cases.ts").then((m) =>
          m.runHooksCases(runtime, io, { cwd, json, cases, trust: options.trust === true, ...providerFlags }),
        );
      }
      const test = {
        cwd,
        json,
        event: rest[0],
        extra: rest.slice(1),
        tool: stringOption(options, "tool"),
        input: stringOption(options, "input"),
        result: stringOption(options, "result"),
        prompt: stringOption(options, "prompt"),
        fields: listOption(options, "field"),
        trust: options.trust === true,
        ...providerFlags,
        pluginDirs,
      };
      return import("./commands/hooks-test.ts").then((m) => m.runHooksTest(runtime, io, test));
    }
    case "replay":
      return import("./commands/hooks-replay.ts").then((m) =>
        m.runHooksReplay(runtime, io, {
          cwd: stringOption(options, "cwd") !== undefined ? cwd : undefined,
          json,
          session: rest[0],
          extra: rest.slice(1),
          from: stringOption(options, "from"),
          trust: options.trust === true,
          permissionMode: stringOption(options, "permissionMode"),
        }),
      );
    case "trust":
      return import("./commands/hooks-trust.ts").then((m) => m.runHooksTrust(runtime, io, { cwd }));
    case "init":
      return import("./commands/hooks-init.ts").then((m) => m.runHooksInit(runtime, io, { cwd, template: rest[0] }));
    case "import":
      return import("./commands/hooks-import.ts").then((m) =>
        m.runHooksImport(runtime, io, { cwd, from: stringOption(options, "from"), user: options.user === true, dryRun: options.dryRun === true }),
      );
    default:
      throw new AgentError("usage", `unknown hooks command "${action}"`, { fix: "use list, validate, test, replay, trust, init or import" });
  }
}

/** `agent hooks ACTION`: its options and examples; hooksAction runs it. */
function defineHooks(cli: Cli, ctx: CliContext): void {
  cli
    .command(
      "hooks <action> [...args]",
      "Hooks: list [--json] | validate | test EVENT | test --cases FILE | replay SESSION | trust | init TEMPLATE | import --from AGENT (hooks --help lists templates and events)",
    )
    .option("--json", "Machine-readable output")
    .option("--cwd <dir>", "Working directory (and start of project discovery)")
    .option("--tool <name>", "hooks test: tool name")
    .option("--input <json>", "hooks test: tool input as JSON or @file")
    .option("--result <json>", "hooks test: tool result as JSON or @file")
    .option("--prompt <text>", "hooks test: prompt text")
    .option("--field <key=json>", "hooks test: any other payload field (repeatable)")
    .option("--trust", "hooks test: trust project hooks for this run only")
    .option("--provider <name>", "hooks test: provider for prompt hooks (openai | anthropic | script)")
    .option("--script <file>", "hooks test: script with prompt-hook replies for --provider script")
    .option("--model <model>", "hooks test: model for prompt hooks")
    .option("--base-url <url>", "hooks test: provider base URL for prompt hooks")
    .option("--from <agent>", "hooks import: claude | gemini | codex; hooks replay: start at record N (1-based)")
    .option("--user", "hooks import: the user's files into ~/.agent/settings.json")
    .option("--dry-run", "hooks import: print the result, write nothing")
    .option("--plugin-dir <dir>", "list, validate, test: also load the Claude Code plugin in DIR (repeatable)")
    .option("--cases <file>", "hooks test: run a suite of cases (JSONL, or TOML [[case]]); exit 1 on any failure")
    .option("--permission-mode <mode>", "hooks replay: judge calls in this mode instead of the recorded one")
    .example("agent hooks list --json")
    .example("agent hooks validate")
    .example(`agent hooks test pre_tool --tool bash --input '{"command":"rm -rf /"}' --json`)
    .example("agent hooks trust")
    .example("agent hooks init guard-bash")
    .action((action: string, rest: string[], options: Options) => {
      ctx.setResult(hooksAction(ctx, action, rest, options));
    });
}

/** `agent plugin` and `agent config`. */
function definePluginAndConfig(cli: Cli, ctx: CliContext): void {
  const { runtime, io } = ctx;
  cli
    .command(
      "plugin <action> [...args]",
      "Claude Code plugins: install PATH|TARBALL|URL | list | enable NAME | disable NAME | remove NAME | marketplace add DIR",
    )
    .option("--json", "plugin list: machine-readable output")
    .option("--cwd <dir>", "Working directory (project plugins in .agent/plugins/)")
    .example("agent plugin install ./my-plugin")
    .example("agent plugin install my-plugin@my-marketplace")
    .example("agent plugin list")
    .action((action: string, rest: string[], options: Options) => {
      const cwd = ctx.cwdOf(options);
      ctx.setResult(import("./commands/plugin.ts").then((m) => m.runPluginCommand(runtime, io, { action, args: rest, cwd, json: options.json === true })));
    });

  cli
    .command("config <action>", "Configuration: path | show | schema")
    .option("--cwd <dir>", "Working directory")
    .example("agent config path")
    .example("agent config schema > agent-settings.schema.json")
    .action((action: string, options: Options) => {
      const cwd = ctx.cwdOf(options);
      ctx.setResult(
        import("./commands/config.ts").then((m) => {
          switch (action) {
            case "path":
              return m.runConfigPath(runtime, io, { cwd });
            case "show":
              return m.runConfigShow(runtime, io, { cwd });
            case "schema":
              return m.runConfigSchema(runtime, io);
            default:
              throw new AgentError("usage", `unknown config command "${action}"`, { fix: "use path, show or schema" });
          }
        }),
      );
    });
}

/** `agent sessions`, `agent mcp`, `agent notify` and `agent completion`. */
function defineSmallCommands(cli: Cli, ctx: CliContext): void {
  const { runtime, io } = ctx;
  cli
    .command("sessions <action> [id]", "Sessions: list | show ID")
    .example("agent sessions list")
    .example("agent sessions show 20261130T082233-ab12cd")
    .action((action: string, id: string | undefined) => {
      ctx.setResult(import("./commands/sessions.ts").then((m) => m.runSessionsCommand(runtime, io, { action, id })));
    });

  cli
    .command("mcp <action> [server]", "MCP servers: list [--json] | test SERVER")
    .option("--json", "Machine-readable output")
    .option("--cwd <dir>", "Working directory")
    .option("--trust", "Start the project's MCP servers for this run even if untrusted")
    .example("agent mcp list")
    .example("agent mcp test github")
    .action((action: string, server: string | undefined, options: Options) => {
      ctx.setResult(
        import("./commands/mcp.ts").then((m) =>
          m.runMcpCommand(runtime, io, { action, server, cwd: ctx.cwdOf(options), json: options.json === true, trust: options.trust === true }),
        ),
      );
    });

  cli
    .command("notify [...message]", "Run notification hooks, then print the notification on stderr")
    .option("--title <title>", "Notification title")
    .option("--cwd <dir>", "Working directory")
    .example(`agent notify --title Build "tests passed"`)
    .action((message: string[], options: Options) => {
      ctx.setResult(
        import("./commands/notify.ts").then((m) =>
          m.runNotifyCommand(runtime, io, { cwd: ctx.cwdOf(options), title: stringOption(options, "title"), message: message.join(" ") }),
        ),
      );
    });

  cli
    .command("completion <shell>", "Shell completion script: bash | zsh | fish | powershell")
    .example("source <(agent completion bash)")
    .action((shell: string) => {
      const table = cli.commands.map((c) => ({ rawName: c.rawName, description: c.description, options: c.options }));
      ctx.setResult(import("./commands/completion.ts").then((m) => m.runCompletion(io, shell, table)));
    });
}

/** Examples, the usage line, `hooks --help`'s extra sections and the interactive session's help. */
async function configureHelp(cli: Cli, argv: readonly string[]): Promise<void> {
  // `agent --help` shows one example per command (the per-command --help shows more).
  for (const example of [
    `agent run --provider script --script script.json --trust --permission-mode accept-edits --allow 'bash(ls*)' "Show me around"`,
    "agent hooks list --json",
    "agent hooks validate",
    `agent hooks test pre_tool --tool bash --input '{"command":"rm -rf /"}' --json`,
    "agent hooks trust",
    "agent hooks init guard-bash",
    "agent config path",
    "agent plugin install ./my-plugin",
    "agent sessions list",
    `agent notify --title Build "tests passed"`,
    "agent mcp list",
    "agent --version",
  ]) {
    cli.example(example);
  }
  const helpFor = argv[0];
  const hooksSections = helpFor === "hooks" && (argv.includes("--help") || argv.includes("-h")) ? await hooksHelpSections() : [];
  cli.usage("[command] [options]   (no command: the interactive session)");
  cli.help((sections) => {
    for (const section of sections) {
      // cac shows `(default: true)` for every --no-X flag, which reads as if the flag were on by default.
      section.body = section.body
        .split("\n")
        .map((line) => (line.trimStart().startsWith("--no-") ? line.replace(/ ?\(default: true\)/, "").trimEnd() : line))
        .join("\n");
    }
    if (helpFor === "hooks") {
      const at = sections.findIndex((section) => section.title === "Options");
      sections.splice(at < 0 ? sections.length : at, 0, ...hooksSections);
    } else if (helpFor === undefined || helpFor.startsWith("-")) {
      const at = sections.findIndex((section) => section.title === "Commands");
      sections.splice(at < 0 ? sections.length : at, 0, { title: "Interactive session", body: INTERACTIVE_HELP });
    }
    return sections;
  });
}

export async function runCli(runtime: Runtime, rawArgv: readonly string[], version: string): Promise<number> {
  const io: CliIO = { out: (text) => runtime.writeStdout(text), err: (text) => runtime.writeStderr(text) };
  const argv = rawArgv.map((arg) => (arg === "-" ? STDIN_ARG : arg));
  const cli = cac("agent");
  const ctx = cliContext(runtime, io);
  defineRun(cli, ctx);
  defineHooks(cli, ctx);
  definePluginAndConfig(cli, ctx);
  defineSmallCommands(cli, ctx);
  await configureHelp(cli, argv);
  cli.version(version);
  return parseAndRun(cli, ctx, argv);
}

/** Runs the matched command, or the interactive session when no command was given. */
async function parseAndRun(cli: Cli, ctx: CliContext, argv: readonly string[]): Promise<number> {
  const { runtime, io } = ctx;
  try {
    cli.parse(["agent", "agent", ...argv], { run: false });
    const parsedOptions = cli.options as Options;
    if (parsedOptions.help || parsedOptions.version) return 0;
    if (!cli.matchedCommand) {
      if (cli.args.length > 0) throw new AgentError("usage", `unknown command "${restoreDash(cli.args[0] ?? "")}"`, { fix: "run agent --help" });
      const unknown = Object.keys(parsedOptions).find((key) => !INTERACTIVE_OPTIONS.has(key));
      if (unknown !== undefined)
        throw new AgentError("usage", `unknown option \`${unknown.length === 1 ? "-" : "--"}${unknown}\``, { fix: "run agent --help" });
      // `agent` alone (or with only session flags) is the interactive session when a person can answer.
      const interactive = runtime.isTTY("stdin") || runtime.env().AGENT_INTERACTIVE === "1";
      if (!interactive) {
        throw new AgentError("usage", "the interactive session needs a terminal, and stdin is not one", {
          fix: `in scripts and pipes use agent run "PROMPT", or agent run - to read the prompt from stdin; agent --help lists the commands`,
        });
      }
      const m = await import("./commands/interactive.ts");
      return await m.runInteractiveCommand(runtime, io, {
        cwd: ctx.cwdOf(parsedOptions),
        provider: stringOption(parsedOptions, "provider"),
        model: stringOption(parsedOptions, "model"),
        baseUrl: stringOption(parsedOptions, "baseUrl"),
        script: stringOption(parsedOptions, "script"),
        permissionMode: stringOption(parsedOptions, "permissionMode"),
        resume: stringOption(parsedOptions, "resume"),
        continue: parsedOptions.continue === true,
        pluginDirs: ctx.pluginDirsOf(parsedOptions),
      });
    }
    await cli.runMatchedCommand();
  } catch (error) {
    if (error instanceof AgentError) throw error;
    if (error instanceof Error && error.name === "CACError") throw new AgentError("usage", error.message, { fix: "run agent --help" });
    throw error;
  }
  const result = ctx.result();
  if (result === undefined) return 0;
  return await result;
}
