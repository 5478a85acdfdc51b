/**
 * cac wiring only: parses argv, then hands each command to its module (imported lazily so a command
 * loads only what it uses). Returns the exit status; `src/main.ts` exits with it.
 */
import { cac } from "cac";
import { AgentError } from "../errors.ts";
import type { Runtime } from "../runtime/types.ts";
import type { CliIO } from "./io.ts";

type Options = Record<string, unknown>;

function stringOption(options: Options, key: string): string | undefined {
  const value = options[key];
  if (value === undefined || value === false) return undefined;
  if (Array.isArray(value)) return stringOption({ [key]: value[value.length - 1] }, key);
  if (value === true) throw new AgentError("usage", `--${key} needs a value`);
  return String(value);
}

function listOption(options: Options, key: string): string[] {
  const value = options[key];
  if (value === undefined || value === false) return [];
  const values = Array.isArray(value) ? value : [value];
  return values.map((item) => {
    if (item === true) throw new AgentError("usage", `--${key} needs a value`);
    return String(item);
  });
}

export async function runCli(runtime: Runtime, argv: readonly string[], version: string): Promise<number> {
  const io: CliIO = { out: (text) => runtime.writeStdout(text), err: (text) => runtime.writeStderr(text) };
  const cli = cac("agent");
  let result: Promise<number> | undefined;
  const cwdOf = (options: Options): string => {
    const dir = stringOption(options, "cwd");
    if (dir === undefined) return runtime.cwd();
    const resolved = dir.startsWith("/") ? dir : `${runtime.cwd()}/${dir}`;
    const real = runtime.fs.realpath(resolved);
    if (real === undefined || runtime.fs.stat(real)?.kind !== "dir") {
      throw new AgentError("usage", `--cwd: ${dir} is not a directory`);
    }
    return real;
  };

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
    .option("--continue", "Resume the most recent session")
    .option("--trust", "Trust this project's hooks for this run only")
    .option("--no-hooks", "Disable every hook")
    .option("--no-session", "Write no session file")
    .example(`cd hooks-examples/demo && agent run --provider script --script script.json --trust --permission-mode accept-edits --allow 'bash(ls*)' "Show me around"`)
    .example(`agent run --provider openai --base-url http://127.0.0.1:11434 --model qwen2.5-coder "fix the tests"`)
    .action((prompt: string[], options: Options) => {
      result = import("./run-command.ts").then((m) =>
        m.runRunCommand(runtime, io, {
          prompt,
          cwd: cwdOf(options),
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
        }),
      );
    });

  cli
    .command("hooks <action> [...args]", "Hooks: list [--json] | validate | test EVENT | trust | init TEMPLATE | import --from AGENT")
    .option("--json", "Machine-readable output")
    .option("--cwd <dir>", "Working directory (and start of project discovery)")
    .option("--tool <name>", "hooks test: tool name")
    .option("--input <json>", "hooks test: tool input as JSON or @file")
    .option("--result <json>", "hooks test: tool result as JSON or @file")
    .option("--prompt <text>", "hooks test: prompt text")
    .option("--field <key=json>", "hooks test: any other payload field (repeatable)")
    .option("--trust", "hooks test: trust project hooks for this run only")
    .option("--from <agent>", "hooks import: claude | gemini | codex")
    .option("--user", "hooks import: the user's files into ~/.agent/settings.json")
    .option("--dry-run", "hooks import: print the result, write nothing")
    .example("agent hooks list --json")
    .example("agent hooks validate")
    .example(`agent hooks test pre_tool --tool bash --input '{"command":"rm -rf /"}' --json`)
    .example("agent hooks trust")
    .example("agent hooks init guard-bash")
    .action((action: string, rest: string[], options: Options) => {
      const cwd = cwdOf(options);
      const json = options.json === true;
      switch (action) {
        case "list":
          result = import("./hooks-list.ts").then((m) => m.runHooksList(runtime, io, { cwd, json }));
          return;
        case "validate":
          result = import("./hooks-validate.ts").then((m) => m.runHooksValidate(runtime, io, { cwd }));
          return;
        case "test":
          result = import("./hooks-test.ts").then((m) =>
            m.runHooksTest(runtime, io, {
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
            }),
          );
          return;
        case "trust":
          result = import("./hooks-trust.ts").then((m) => m.runHooksTrust(runtime, io, { cwd }));
          return;
        case "init":
          result = import("./hooks-init.ts").then((m) => m.runHooksInit(runtime, io, { cwd, template: rest[0] }));
          return;
        case "import":
          result = import("./hooks-import.ts").then((m) => m.runHooksImport(runtime, io, { cwd, from: stringOption(options, "from"), user: options.user === true, dryRun: options.dryRun === true }));
          return;
        default:
          throw new AgentError("usage", `unknown hooks command "${action}"`, { fix: "use list, validate, test, trust, init or import" });
      }
    });

  cli
    .command("config <action>", "Configuration: path | show | schema")
    .option("--cwd <dir>", "Working directory")
    .example("agent config path")
    .example("agent config schema > agent-settings.schema.json")
    .action((action: string, options: Options) => {
      const cwd = cwdOf(options);
      result = import("./config-commands.ts").then((m) => {
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
      });
    });

  cli
    .command("sessions <action> [id]", "Sessions: list | show ID")
    .example("agent sessions list")
    .example("agent sessions show 20261130T082233-ab12cd")
    .action((action: string, id: string | undefined) => {
      result = import("./sessions-command.ts").then((m) => m.runSessionsCommand(runtime, io, { action, id }));
    });

  cli
    .command("notify [...message]", "Run notification hooks, then print the notification on stderr")
    .option("--title <title>", "Notification title")
    .option("--cwd <dir>", "Working directory")
    .example(`agent notify --title Build "tests passed"`)
    .action((message: string[], options: Options) => {
      result = import("./notify-command.ts").then((m) =>
        m.runNotifyCommand(runtime, io, { cwd: cwdOf(options), title: stringOption(options, "title"), message: message.join(" ") }),
      );
    });

  // `agent --help` shows one example per command (the per-command --help shows more).
  for (const example of [
    `agent run --provider script --script script.json --trust --permission-mode accept-edits --allow 'bash(ls*)' "Show me around"`,
    "agent hooks list --json",
    "agent hooks validate",
    `agent hooks test pre_tool --tool bash --input '{"command":"rm -rf /"}' --json`,
    "agent hooks trust",
    "agent hooks init guard-bash",
    "agent config path",
    "agent sessions list",
    `agent notify --title Build "tests passed"`,
    "agent --version",
  ]) {
    cli.example(example);
  }
  cli.help();
  cli.version(version);

  try {
    cli.parse(["agent", "agent", ...argv], { run: false });
    const parsedOptions = cli.options as Options;
    // `agent` alone (or with only session flags) is the interactive session when a person can answer.
    const interactive = runtime.isTTY("stdin") || runtime.env().AGENT_INTERACTIVE === "1";
    if (interactive && !cli.matchedCommand && cli.args.length === 0 && !parsedOptions.help && !parsedOptions.version) {
      const m = await import("./interactive-command.ts");
      return await m.runInteractiveCommand(runtime, io, {
        cwd: cwdOf(parsedOptions),
        provider: stringOption(parsedOptions, "provider"),
        model: stringOption(parsedOptions, "model"),
        baseUrl: stringOption(parsedOptions, "baseUrl"),
        script: stringOption(parsedOptions, "script"),
        permissionMode: stringOption(parsedOptions, "permissionMode"),
        resume: stringOption(parsedOptions, "resume"),
      });
    }
    if (argv.length === 0) {
      cli.outputHelp();
      return 0;
    }
    if (parsedOptions.help || parsedOptions.version) return 0;
    if (!cli.matchedCommand) {
      throw new AgentError("usage", `unknown command "${argv[0] ?? ""}"`, { fix: "run agent --help" });
    }
    await cli.runMatchedCommand();
  } catch (error) {
    if (error instanceof AgentError) throw error;
    if (error instanceof Error && error.name === "CACError") throw new AgentError("usage", error.message, { fix: "run agent --help" });
    throw error;
  }
  if (result === undefined) return 0;
  return await result;
}
