// watch.js: the settings dialog's "Watch a folder on this computer" (docs/PHONE.md §W2.11):
// the texts that run `obscura watch` for this vault, with the code, the vault's path and
// the folder filled in: the line that writes the code file, the command, a systemd user
// unit and a launchd agent. The README's texts are this function's output for its example
// (tests/browser/test_watch_settings.py holds them equal).

import { toast } from './dialogs.js';

const $ = (id) => document.getElementById(id);

/** A word for a POSIX shell: as it is when it is plain, else in single quotes. */
export function shellQuote(word) {
  if (/^[A-Za-z0-9_\/.,:@%+=-]+$/.test(word)) return word;
  return "'" + word.replaceAll("'", "'\\''") + "'";
}

/** Text for XML character data and attribute values. */
function xmlText(text) {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;');
}

/**
 * The four texts for watching `folder` (`~` is the server's home) into the vault that
 * `facts` describe ({vaultPath, platform, binary, home}), sealed to `code`. The code is
 * in the first text only: the others read it from the code file, which `ps` does not show.
 */
export function watchTexts(facts, code, folder) {
  const home = facts.home.replace(/\/+$/, '');
  const expand = (path) => (path === '~' ? home : path.startsWith('~/') ? home + path.slice(1) : path);
  const source = expand(folder.trim() || '~/Sync/Camera');
  const codeFile = home + '/.config/obscura/watch.code';
  const command = [facts.binary, '--vault', facts.vaultPath, 'watch', '--code-file', codeFile, source];
  const codeLine = `mkdir -p ${shellQuote(home + '/.config/obscura')} && (umask 077; printf '%s\\n' ${shellQuote(code)} > ${shellQuote(codeFile)})`;
  // systemd splits ExecStart= on spaces and reads quotes, and expands % and $ even in
  // quotes: each is doubled.
  const unitWord = (word) => {
    const escaped = word.replaceAll('%', '%%').replaceAll('$', '$$$$');
    return /[\s"'\\]/.test(escaped) ? '"' + escaped.replaceAll('\\', '\\\\').replaceAll('"', '\\"') + '"' : escaped;
  };
  const systemd = [
    '# ~/.config/systemd/user/obscura-watch.service',
    '[Unit]',
    `Description=Obscura: seal new photos from ${source} into the vault's inbox`,
    '',
    '[Service]',
    `ExecStart=${command.map(unitWord).join(' ')}`,
    'Restart=on-failure',
    'RestartSec=10',
    '# 64: a bad code, a code file others can read, --remove-after in a two-way synced folder:',
    '# restarting cannot mend these',
    'RestartPreventExitStatus=64',
    'Nice=10',
    'IOSchedulingClass=idle',
    'UMask=0077',
    'NoNewPrivileges=yes',
    '',
    '[Install]',
    'WantedBy=default.target',
  ].join('\n');
  const launchd = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">',
    '<plist version="1.0">',
    '<dict>',
    '  <key>Label</key><string>org.obscura.watch</string>',
    '  <key>ProgramArguments</key>',
    '  <array>',
    ...command.map((word) => `    <string>${xmlText(word)}</string>`),
    '  </array>',
    '  <key>RunAtLoad</key><true/>',
    '  <key>KeepAlive</key><dict><key>SuccessfulExit</key><false/></dict>',
    '  <key>ThrottleInterval</key><integer>10</integer>',
    '  <key>ProcessType</key><string>Background</string>',
    '  <key>LowPriorityIO</key><true/>',
    '  <key>Umask</key><integer>63</integer>',
    `  <key>StandardErrorPath</key><string>${xmlText(home + '/Library/Logs/obscura-watch.log')}</string>`,
    '</dict>',
    '</plist>',
  ].join('\n');
  return { codeLine, command: command.map(shellQuote).join(' '), systemd, launchd };
}

export class WatchPanel {
  constructor() {
    this.facts = null;
    this.code = '';
    $('watch-folder').addEventListener('input', () => this.render());
    for (const [button, block] of [['watch-code-line-copy', 'watch-code-line'], ['watch-command-copy', 'watch-command'],
      ['watch-systemd-copy', 'watch-systemd'], ['watch-launchd-copy', 'watch-launchd']]) {
      $(button).addEventListener('click', () => this.copy($(block).textContent));
    }
  }

  /** Shows the texts for the code and facts of `GET /api/drops/code`. */
  show(answer) {
    this.facts = answer.watch;
    this.code = answer.code;
    // The server's own platform first: its service manager is the one that applies.
    const services = $('watch-services');
    const mac = this.facts.platform === 'macos';
    services.replaceChildren(...(mac ? [$('watch-launchd-block'), $('watch-systemd-block')] : [$('watch-systemd-block'), $('watch-launchd-block')]));
    this.render();
    $('watch-body').hidden = false;
  }

  render() {
    if (!this.facts) return;
    const texts = watchTexts(this.facts, this.code, $('watch-folder').value);
    $('watch-code-line').textContent = texts.codeLine;
    $('watch-command').textContent = texts.command;
    $('watch-systemd').textContent = texts.systemd;
    $('watch-launchd').textContent = texts.launchd;
  }

  /** Forgets the code and the texts, so that a locked page keeps nothing of them. */
  clear() {
    this.facts = null;
    this.code = '';
    for (const id of ['watch-code-line', 'watch-command', 'watch-systemd', 'watch-launchd']) $(id).textContent = '';
    $('watch-body').hidden = true;
  }

  async copy(text) {
    try {
      await navigator.clipboard.writeText(text);
      toast('Copied');
    } catch {
      toast('Copying is not allowed here; select the text and copy it by hand.', 'error');
    }
  }
}
