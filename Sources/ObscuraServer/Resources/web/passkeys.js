// passkeys.js: unlock with a passkey (docs/PASSKEY.md §P5): the WebAuthn ceremonies
// with the PRF extension, the unlock button, and the settings section that lists, adds
// and removes a vault's passkeys. The server never lists credential ids before an
// unlock, so the get() offers every passkey for this site and the server's sweep finds
// which vault, if any, the answer opens.

import { post, get } from './api.js';

/** base64url without padding of an ArrayBuffer or view. */
export function b64u(buffer) {
  const bytes = new Uint8Array(buffer instanceof ArrayBuffer ? buffer : buffer.buffer.slice(buffer.byteOffset, buffer.byteOffset + buffer.byteLength));
  let text = '';
  for (const byte of bytes) text += String.fromCharCode(byte);
  return btoa(text).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** The bytes of a base64url text. */
export function fromB64u(text) {
  const plain = atob(text.replace(/-/g, '+').replace(/_/g, '/'));
  return Uint8Array.from(plain, (c) => c.charCodeAt(0));
}

const NO_PRF = 'This authenticator cannot unlock Obscura (it has no PRF support). Use another, or keep the password.';
export const NOT_OPENED = 'This passkey did not open a vault. If you keep several Obscura directories, choose another passkey.';

/** Why passkeys cannot be used on this page, or '' when they can. */
export function passkeysUnavailable() {
  if (!window.PublicKeyCredential || !navigator.credentials) return 'This browser cannot unlock with a passkey.';
  // WebAuthn refuses IP addresses as relying parties.
  const host = location.hostname;
  if (/^[0-9.]+$/.test(host) || host.includes(':') || host.startsWith('[')) {
    return 'Passkeys work at http://localhost:' + location.port + '/ (the same server, by name).';
  }
  return '';
}

/** The PRF result of a ceremony's extension outputs, or null. */
function prfResult(credential) {
  return credential.getClientExtensionResults()?.prf?.results?.first ?? null;
}

/** Zeroes the page's copy of a PRF output once sent (the browser's own copies are out of reach). */
function wipe(buffer) {
  if (buffer) new Uint8Array(buffer instanceof ArrayBuffer ? buffer : buffer.buffer).fill(0);
}

/** Tells the browser a credential is gone, where it offers that (WebAuthn signal methods). */
function signalUnknown(rpId, rawId) {
  try {
    PublicKeyCredential.signalUnknownCredential?.({ rpId, credentialId: typeof rawId === 'string' ? rawId : b64u(rawId) })?.catch?.(() => {});
  } catch {
    // Not offered: nothing to do.
  }
}

/**
 * Unlocks with a passkey: a discoverable get() with the directory's PRF input, and the
 * answer sent as a password would be. Resolves to the server's answer; rejects with an
 * Error whose `status` is the server's (401, 429 with `retryAfter`) or with a message
 * for the user when nothing was sent.
 */
export async function unlockWithPasskey() {
  const begin = await post('/api/passkey/begin', { kind: 'get' });
  let assertion;
  try {
    assertion = await navigator.credentials.get({ publicKey: {
      rpId: begin.rpId, challenge: fromB64u(begin.challenge), allowCredentials: [], userVerification: 'required',
      timeout: 120000, extensions: { prf: { eval: { first: fromB64u(begin.input) } } },
    } });
  } catch {
    // Cancelled, timed out or not verified: the words of a failed unlock; nothing is sent.
    throw new Error(NOT_OPENED);
  }
  const prf = prfResult(assertion);
  if (!prf) throw new Error(NO_PRF);
  const response = assertion.response;
  const body = {
    prf: b64u(prf), rawId: b64u(assertion.rawId), authenticatorData: b64u(response.authenticatorData),
    clientDataJSON: b64u(response.clientDataJSON), signature: b64u(response.signature),
    userHandle: response.userHandle ? b64u(response.userHandle) : null,
  };
  wipe(prf);
  try {
    return await post('/api/unlock/passkey', body);
  } finally {
    body.prf = '';
  }
}

/** The settings section: the vault's passkeys, adding one, removing one. */
export class PasskeyPanel {
  constructor() {
    this.list = document.getElementById('passkey-list');
    this.form = document.getElementById('passkey-form');
    this.message = document.getElementById('passkey-message');
    this.form.addEventListener('submit', (event) => this.add(event));
  }

  say(text, ok = false) {
    this.message.textContent = text;
    this.message.hidden = !text;
    this.message.classList.toggle('form-ok', ok);
  }

  /** Empties the list and the message (at lock). */
  forget() {
    this.list.replaceChildren();
    this.list.hidden = true;
    this.say('');
  }

  /** The vault's passkeys now, or [] when they cannot be read. */
  async current() {
    try {
      return (await get('/api/passkeys')).passkeys;
    } catch {
      return [];
    }
  }

  async load() {
    this.say('');
    const unavailable = passkeysUnavailable();
    const note = document.getElementById('passkeys-unavailable');
    note.textContent = unavailable;
    note.hidden = !unavailable;
    this.form.hidden = Boolean(unavailable);
    try {
      this.paint((await get('/api/passkeys')).passkeys);
    } catch (failure) {
      this.say(failure.message);
    }
  }

  paint(passkeys) {
    this.list.replaceChildren();
    this.list.hidden = passkeys.length === 0;
    for (const passkey of passkeys) {
      const item = document.createElement('li');
      item.className = 'passkey-item';
      item.dataset.name = passkey.name;
      const text = document.createElement('span');
      const date = new Date(passkey.createdAt).toLocaleDateString();
      text.textContent = passkey.name + ' · Obscura · ' + passkey.tag + ' · ' + date + (passkey.synced ? ' · synced' : '');
      const remove = document.createElement('button');
      remove.type = 'button';
      remove.className = 'btn btn-small';
      remove.textContent = 'Remove';
      remove.addEventListener('click', () => this.remove(passkey.name));
      item.append(text, ' ', remove);
      this.list.append(item);
    }
    document.getElementById('passkey-add').disabled = passkeys.length >= 4;
  }

  password() {
    const field = document.getElementById('passkey-password');
    const value = field.value;
    if (!value) {
      this.say('Enter the vault password first.');
      field.focus();
    }
    return value;
  }

  async remove(name) {
    const password = this.password();
    if (!password) return;
    try {
      const answer = await post('/api/passkeys/remove', { password, name });
      document.getElementById('passkey-password').value = '';
      signalUnknown(location.hostname, answer.credentialId);
      this.say('Removed "' + name + '". Delete its "Obscura" passkey in the authenticator\'s settings too.', true);
      this.paint((await get('/api/passkeys')).passkeys);
    } catch (failure) {
      if (failure.status === 401) document.getElementById('passkey-password').value = '';
      this.say(failure.status === 401 ? 'Wrong password.' : failure.message);
    }
  }

  async add(event) {
    event.preventDefault();
    const name = document.getElementById('passkey-name').value.trim();
    if (!name) return this.say('Give the passkey a name, such as the device it is on.');
    const password = this.password();
    if (!password) return;
    const button = document.getElementById('passkey-add');
    button.disabled = true;
    this.say('Follow your browser: it asks for your fingerprint, face, PIN or security key, twice.');
    let created = null;
    try {
      const begin = await post('/api/passkey/begin', { kind: 'create' });
      try {
        created = await navigator.credentials.create({ publicKey: {
          rp: { id: begin.rpId, name: 'Obscura' },
          user: { id: fromB64u(begin.userId), name: 'Obscura', displayName: 'Obscura · ' + begin.tag },
          challenge: fromB64u(begin.challenge),
          pubKeyCredParams: [{ type: 'public-key', alg: -7 }, { type: 'public-key', alg: -8 }],
          authenticatorSelection: { residentKey: 'required', requireResidentKey: true, userVerification: 'required' },
          attestation: 'none', excludeCredentials: [], timeout: 120000,
          extensions: { prf: { eval: { first: fromB64u(begin.input) } } },
        } });
      } catch (failure) {
        return this.say(failure?.name === 'NotSupportedError' ? 'This authenticator cannot unlock Obscura.'
          : failure?.name === 'InvalidStateError' ? 'This security key has no room for another passkey.'
          : 'No passkey was made.');
      }
      if (created.getClientExtensionResults()?.prf?.enabled !== true) {
        signalUnknown(begin.rpId, created.rawId);
        return this.say(NO_PRF);
      }
      // A second user verification, always: its PRF result is the one the vault keeps.
      const check = await post('/api/passkey/begin', { kind: 'get' });
      let assertion;
      try {
        assertion = await navigator.credentials.get({ publicKey: {
          rpId: check.rpId, challenge: fromB64u(check.challenge), userVerification: 'required', timeout: 120000,
          allowCredentials: [{ type: 'public-key', id: created.rawId }],
          extensions: { prf: { eval: { first: fromB64u(check.input) } } },
        } });
      } catch {
        signalUnknown(begin.rpId, created.rawId);
        return this.say('The passkey was not confirmed. Nothing was added; delete the new "Obscura" passkey in the authenticator.');
      }
      const prf = prfResult(assertion);
      const early = prfResult(created);
      if (!prf || (early && b64u(early) !== b64u(prf))) {
        signalUnknown(begin.rpId, created.rawId);
        return this.say(prf ? 'This authenticator gave two different answers; it cannot unlock Obscura.' : NO_PRF);
      }
      const response = created.response;
      const answer = assertion.response;
      const body = {
        password, name, prf: b64u(prf),
        createRawId: b64u(created.rawId), createClientDataJSON: b64u(response.clientDataJSON),
        createAuthenticatorData: b64u(response.getAuthenticatorData()), createPublicKey: b64u(response.getPublicKey()),
        createAlgorithm: String(response.getPublicKeyAlgorithm()),
        getRawId: b64u(assertion.rawId), getAuthenticatorData: b64u(answer.authenticatorData),
        getClientDataJSON: b64u(answer.clientDataJSON), getSignature: b64u(answer.signature),
        getUserHandle: answer.userHandle ? b64u(answer.userHandle) : null,
      };
      wipe(prf);
      wipe(early);
      try {
        await post('/api/passkeys', body);
      } catch (failure) {
        signalUnknown(begin.rpId, created.rawId);
        return this.say((failure.status === 401 ? 'Wrong password.' : failure.message)
          + ' The new passkey stays on the authenticator; delete it there.');
      } finally {
        body.prf = '';
        body.password = '';
      }
      document.getElementById('passkey-name').value = '';
      document.getElementById('passkey-password').value = '';
      this.say('Added "' + name + '". Lock the vault and try "Unlock with a passkey".', true);
      this.paint((await get('/api/passkeys')).passkeys);
    } catch (failure) {
      this.say(failure.message);
    } finally {
      button.disabled = this.list.children.length >= 4;
    }
  }
}
