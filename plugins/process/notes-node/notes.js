'use strict';
// notes-node: a process plugin in Node.js, with the screen role (the notes
// screen) and the token role. Its target handler is async: its answers come
// when its writes end, in any order, and the SDK matches them by id.
const fs = require('fs');
const path = require('path');

const pushhost = require(process.env.PUSHHOST_SDK_NODE
  ? path.resolve(process.env.PUSHHOST_SDK_NODE, 'pushhost.js')
  : path.join(__dirname, '../../../sdk/node/pushhost.js'));

const notes = path.join(pushhost.state, 'notes.log');

function line(route, message) {
  const shown = message.notification || {};
  return JSON.stringify([route, message.id, message.target || '', shown.title || '', shown.body || '']) + '\n';
}

pushhost.run({
  // The message is aimed at the notes screen, which is shown.
  target: async (message) => {
    await fs.promises.appendFile(notes, line('target', message));
  },
  // The notes screen is on top, and the message is aimed elsewhere.
  mismatch: (message) => {
    fs.appendFileSync(notes, line('mismatch', message));
  },
  token: (token, previous) => {
    fs.writeFileSync(path.join(pushhost.state, 'token.txt'), token + '\n');
    pushhost.log(previous === undefined ? 'first token' : 'new token, the previous one replaced');
  },
});
