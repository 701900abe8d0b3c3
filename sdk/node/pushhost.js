'use strict';
// pushhost: the Node.js SDK for process plugins, protocol 1.
//
// A process plugin is a program that pushhost starts and talks to in JSON
// lines: calls on the program's standard input, one answer per call on its
// standard output. This module is the program's side of that protocol
// (docs/process-plugins.md). It needs Node.js 18's standard library only.
//
//   const pushhost = require('./pushhost');
//   pushhost.run({
//     data: (message) => message.data.spam === '1' ? 'suppress' : undefined,
//     background: async (message) => { pushhost.log('got', message.id); },
//   });
//
// - name: the plugin's name (PUSHHOST_PLUGIN).
// - state: the plugin's state folder, the one folder it may write
//   (PUSHHOST_STATE).
// - settings: the plugin's settings, an object whose values are all strings
//   (PUSHHOST_SETTINGS).
// - log(...parts) logs at info, log.warning(...parts) (and log.trace,
//   log.debug, log.info, log.notice, log.error, log.critical) at that level.
// - run({data, background, target, mismatch, token, action}): answers calls
//   until the host closes standard input, then ends the program with status 0.
//
// Outside the host (no PUSHHOST_* variables), name and state are empty
// strings and settings is an empty object.

const { Console } = require('console');
const util = require('util');

const PROTOCOL = 1;
const name = process.env.PUSHHOST_PLUGIN || '';
const state = process.env.PUSHHOST_STATE || '';
const settings = JSON.parse(process.env.PUSHHOST_SETTINGS || '{}');
const LEVELS = ['trace', 'debug', 'info', 'notice', 'warning', 'error', 'critical'];
const ROLES = ['data', 'background', 'target', 'mismatch', 'token', 'action'];
// A lone surrogate, which would not make valid JSON text: replaced.
const lone = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

// A record longer than the host takes whole (2,048 bytes) loses the end of
// its text, so that it is still logged at its level.
const LOG_LIMIT = 2048;

function logAt(level, parts) {
  let text = parts.map((p) => (typeof p === 'string' ? p : util.inspect(p, { breakLength: Infinity }))).join(' ');
  if (!name) {
    process.stderr.write(`${level}: ${text}\n`);
    return;
  }
  let raw = Buffer.from(text.replace(lone, '\ufffd'));
  text = raw.toString();
  for (;;) {
    const line = JSON.stringify({ level, source: name, message: text }) + '\n';
    const over = Buffer.byteLength(line) - LOG_LIMIT;
    if (over <= 0) {
      process.stderr.write(line);
      return;
    }
    raw = raw.subarray(0, Math.max(0, raw.length - over - 3));
    text = raw.toString() + '\u2026';
  }
}

// One log line under the plugin's name: the parts joined by spaces. Under
// the host it is a JSON record on standard error that names the plugin,
// which the host logs at its level as the plugin's own line; outside the
// host (no PUSHHOST_PLUGIN) it is plain text, `LEVEL: TEXT`.
function log(...parts) {
  logAt('info', parts);
}
for (const level of LEVELS) log[level] = (...parts) => logAt(level, parts);

function reason(e) {
  if (e instanceof Error) return e.message ? `${e.name}: ${e.message}` : e.name;
  try {
    return String(e);
  } catch (_) {
    return util.inspect(e);
  }
}

const done = (id) => `{"id":${id}}\n`;
// A reason is cut, since a line may not be longer than the host takes.
const failed = (id, why) => `{"id":${id},"error":${JSON.stringify(String(why).slice(0, 2000).replace(lone, '\ufffd'))}}\n`;

function verdict(id, v) {
  if (v === undefined || v === null || v === true || v === 'continue') return done(id);
  if (v === false || v === 'suppress') return `{"id":${id},"verdict":"suppress"}\n`;
  return failed(id, `the data handler returned ${util.inspect(v).slice(0, 100)}, which is no verdict ` +
    '(undefined, null, true, "continue", false, "suppress")');
}

// Answers the host's calls until it closes standard input, then, once every
// call is answered, ends the program with status 0.
//
// Each handler is optional; a call for one not given gets an error answer.
// A handler returns its result or a Promise of it; answers come as calls
// finish, in any order. data(message) returns the verdict: undefined, null,
// true or 'continue' to continue, false or 'suppress' to suppress.
// background, target and mismatch take the message, token takes (token,
// previous) and action takes (action, input, message); previous and input
// are undefined when absent. Their results are ignored. A handler that
// throws, or whose Promise rejects, fails its call with the error's name
// and message as the reason. A program with target and no mismatch answers
// mismatch calls as done, doing nothing.
function run(handlers = {}) {
  for (const [role, fn] of Object.entries(handlers)) {
    if (!ROLES.includes(role)) throw new TypeError(`run: unknown handler ${role} (handlers: ${ROLES.join(', ')})`);
    if (fn != null && typeof fn !== 'function') throw new TypeError(`run: ${role} is not a function`);
  }
  const { data, background, target, token, action } = handlers;
  const mismatch = handlers.mismatch || (target ? () => undefined : undefined);
  const plain = { __proto__: null };
  if (background) plain.background = background;
  if (target) plain.target = target;
  if (mismatch) plain.mismatch = mismatch;

  // Standard output carries the answers: console.log and its kin write to
  // standard error from here on, where the host logs them. Never write to
  // process.stdout yourself.
  globalThis.console = new Console({ stdout: process.stderr, stderr: process.stderr });

  const stdout = process.stdout;
  const stdin = process.stdin;
  let out = []; // answers not yet written
  let waiting = 0; // calls whose Promise has not settled
  let ended = false;
  let scheduled = false;
  let pieces = []; // the start of a line that no read has ended yet

  const exit = () => process.exit(0);
  stdout.on('error', exit); // the host no longer reads the answers
  stdin.on('error', exit);

  function write() {
    scheduled = false;
    const last = ended && waiting === 0;
    if (out.length) {
      const text = out.join('');
      out = [];
      if (last) stdout.write(text, exit);
      else stdout.write(text);
    } else if (last) {
      stdout.write('', exit);
    }
  }

  // One write for every answer ready by the end of this turn: those of the
  // reads just handled and of the Promises they settled at once.
  function schedule() {
    if (!scheduled) {
      scheduled = true;
      setImmediate(write);
    }
  }

  function later(id, result, toAnswer) {
    waiting++;
    Promise.resolve(result).then(
      (v) => toAnswer(id, v),
      (e) => failed(id, reason(e)),
    ).catch((e) => failed(id, reason(e))).then((answer) => {
      waiting--;
      out.push(answer);
      schedule();
    });
  }

  function handle(line) {
    if (!line) return;
    let call, id;
    try {
      call = JSON.parse(line);
      id = call.id;
      if (!Number.isSafeInteger(id)) throw new Error('its id is not an integer');
    } catch (e) {
      logAt('error', [`a line from the host that is not a call (${reason(e)}): ${line.slice(0, 200)}`]);
      return;
    }
    const kind = call.call;
    try {
      let result;
      let toAnswer = done;
      const fn = plain[kind];
      if (fn) {
        result = fn(call.message);
      } else if (kind === 'data' && data) {
        result = data(call.message);
        toAnswer = verdict;
      } else if (kind === 'token' && token) {
        result = token(call.token, call.previous);
      } else if (kind === 'action' && action) {
        result = action(call.action, call.input, call.message);
      } else {
        out.push(failed(id, ROLES.includes(kind)
          ? `no ${kind} handler in this program`
          : `unknown call ${JSON.stringify(kind)}`));
        return;
      }
      if (result !== null && (typeof result === 'object' || typeof result === 'function') &&
          typeof result.then === 'function') {
        later(id, result, toAnswer);
      } else {
        out.push(toAnswer(id, result));
      }
    } catch (e) {
      out.push(failed(id, reason(e)));
    }
  }

  stdout.write('{"pushhost":1}\n');

  stdin.on('data', (chunk) => {
    const cut = chunk.lastIndexOf(10);
    if (cut < 0) {
      pieces.push(chunk);
      return;
    }
    let head = chunk.subarray(0, cut);
    if (pieces.length) {
      pieces.push(head);
      head = Buffer.concat(pieces);
      pieces = [];
    }
    if (cut + 1 < chunk.length) pieces.push(Buffer.from(chunk.subarray(cut + 1)));
    for (const line of head.toString('utf8').split('\n')) handle(line);
    schedule();
  });

  stdin.on('end', () => {
    // The end of input: a last line without its newline is a line too.
    const last = Buffer.concat(pieces).toString('utf8').trim();
    pieces = [];
    if (last) handle(last);
    ended = true;
    schedule();
  });
}

module.exports = { PROTOCOL, name, state, settings, log, run };
