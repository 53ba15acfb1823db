// The TypeScript reference client (@agentclientprotocol/sdk) holding one conversation
// with `agent-shell acp`: a second, independent implementation of the protocol.
// The SDK checks every message the agent sends with its zod schemas; the responses
// are checked here against the same schemas. Prints one JSON summary on stdout.
//
//   node ts_client.mjs SDK_DIR WORKSPACE -- COMMAND ARGS...

import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { Readable, Writable } from "node:stream";
import { pathToFileURL } from "node:url";

const [sdkDir, workspace, dashes, command, ...args] = process.argv.slice(2);
if (dashes !== "--" || !command) {
  console.error("usage: node ts_client.mjs SDK_DIR WORKSPACE -- COMMAND ARGS...");
  process.exit(2);
}
const acp = await import(pathToFileURL(join(sdkDir, "dist/v1/stable/acp.js")).href);
const z = await import(pathToFileURL(join(sdkDir, "dist/v1/schema/zod.gen.js")).href);

const agent = spawn(command, args, { cwd: workspace, stdio: ["pipe", "pipe", "inherit"] });
const stream = acp.ndJsonStream(Writable.toWeb(agent.stdin), Readable.toWeb(agent.stdout));

const updates = [];
const permissions = [];
let answer = "allow_once";
let onUpdate = () => {};

const app = acp
  .client({ name: "agent-shell-ts-test" })
  .onNotification(acp.methods.client.session.update, ({ params }) => {
    updates.push(params.update);
    onUpdate(params.update);
  })
  .onRequest(acp.methods.client.session.requestPermission, ({ params }) => {
    permissions.push({
      toolCallId: params.toolCall.toolCallId,
      kind: params.toolCall.kind,
      options: params.options.map((o) => o.kind),
    });
    return { outcome: { outcome: "selected", optionId: answer } };
  });

function checked(schema, name, value) {
  const result = schema.safeParse(value);
  if (!result.success) {
    throw new Error(`${name} does not fit the schema: ${JSON.stringify(result.error.issues)}`);
  }
  return value;
}

function text(kind, from = 0) {
  return updates
    .slice(from)
    .filter((u) => u.sessionUpdate === kind && u.content.type === "text")
    .map((u) => u.content.text)
    .join("");
}

function statuses(id) {
  return updates.filter((u) => u.toolCallId === id && u.status).map((u) => u.status);
}

const summary = await app.connectWith(stream, async (ctx) => {
  const init = checked(
    z.zInitializeResponse,
    "initialize",
    await ctx.request(acp.methods.agent.initialize, {
      protocolVersion: acp.PROTOCOL_VERSION,
      clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
    }),
  );
  const session = checked(
    z.zNewSessionResponse,
    "session/new",
    await ctx.request(acp.methods.agent.session.new, { cwd: workspace, mcpServers: [] }),
  );
  const sessionId = session.sessionId;
  const prompt = async (words) =>
    checked(
      z.zPromptResponse,
      "session/prompt",
      await ctx.request(acp.methods.agent.session.prompt, {
        sessionId,
        prompt: [{ type: "text", text: words }],
      }),
    );

  const stops = [];
  let mark = updates.length;
  stops.push((await prompt("hello")).stopReason);
  const hello = text("agent_message_chunk", mark);
  const helloChunks = updates.slice(mark).filter((u) => u.sessionUpdate === "agent_message_chunk").length;

  answer = "allow_once";
  stops.push((await prompt("write a.txt")).stopReason);
  answer = "reject_once";
  stops.push((await prompt("write b.txt")).stopReason);

  const switched = checked(
    z.zSetSessionConfigOptionResponse,
    "session/set_config_option",
    await ctx.request(acp.methods.agent.session.setConfigOption, {
      sessionId,
      configId: "middleware.TodoList",
      value: "on",
    }),
  );
  stops.push((await prompt("plan it")).stopReason);

  await ctx.request(acp.methods.agent.session.setMode, { sessionId, modeId: "bypass" });
  const running = new Promise((resolve) => {
    onUpdate = (u) => {
      if (u.toolCallId === "s1" && u.status === "in_progress") resolve();
    };
  });
  const slow = prompt("wait");
  await running;
  await new Promise((r) => setTimeout(r, 200));
  const started = performance.now();
  await ctx.notify(acp.methods.agent.session.cancel, { sessionId });
  const cancelled = await slow;
  const cancelMs = performance.now() - started;
  stops.push(cancelled.stopReason);

  const listed = checked(
    z.zListSessionsResponse,
    "session/list",
    await ctx.request(acp.methods.agent.session.list, { cwd: workspace }),
  );
  const live = { w1: statuses("w1"), w2: statuses("w2"), t1: statuses("t1"), s1: statuses("s1") };
  mark = updates.length;
  checked(
    z.zLoadSessionResponse,
    "session/load",
    await ctx.request(acp.methods.agent.session.load, { sessionId, cwd: workspace, mcpServers: [] }),
  );
  const replayedUser = text("user_message_chunk", mark);

  const plans = updates.filter((u) => u.sessionUpdate === "plan");
  return {
    protocolVersion: init.protocolVersion,
    loadSession: init.agentCapabilities.loadSession,
    modes: session.modes.availableModes.map((m) => m.id),
    options: session.configOptions.map((o) => [o.id, o.type, o.currentValue]),
    todoListAfterSwitch: switched.configOptions.find((o) => o.id === "middleware.TodoList").currentValue,
    stops,
    hello,
    helloChunks,
    permissions,
    statuses: live,
    kinds: Object.fromEntries(updates.filter((u) => u.sessionUpdate === "tool_call").map((u) => [u.toolCallId, u.kind])),
    aExists: existsSync(join(workspace, "a.txt")),
    bExists: existsSync(join(workspace, "b.txt")),
    plan: plans.length ? plans[plans.length - 1].entries.map((e) => [e.content, e.status]) : null,
    cancelMs,
    listed: listed.sessions.map((s) => s.sessionId),
    sessionId,
    replayedUser,
  };
});

agent.stdin.end();
console.log(JSON.stringify(summary));
process.exit(0);
