// folders.js: the folder list in the sidebar and the folder dialogs: create
// (nested by "A/B" paths, optionally protected), unlock, lock, rename, move,
// delete, and the "move to" chooser. Fires 'change' after the list is fetched again.

import { get, post, sessionTrouble } from './api.js';
import { busy, confirmAction, openDialog, showError, toast } from './dialogs.js';
import { count } from './format.js';
import { icon } from './icons.js';
import { attachStrength, WEAK_PASSWORD_MESSAGE } from './strength.js';

const $ = (id) => document.getElementById(id);

export class Folders extends EventTarget {
  constructor({ onOpen }) {
    super();
    this.strength = attachStrength($('folder-password'), 'folder');
    this.list = [];
    this.onOpen = onOpen;
    this.current = null;
    $('new-folder-button').addEventListener('click', () => this.create());
    $('folder-protect').addEventListener('change', (event) => {
      $('folder-password-fields').hidden = !event.target.checked;
    });
    $('folder-form').addEventListener('submit', (event) => this.submitCreate(event));
    $('folder-unlock-form').addEventListener('submit', (event) => this.submitUnlock(event));
    $('move-form').addEventListener('submit', (event) => {
      event.preventDefault();
      $('move-dialog').close('move');
    });
    $('move-new-folder').addEventListener('click', () => this.createInMoveDialog());
    $('rename-form').addEventListener('submit', (event) => this.submitRename(event));
  }

  byId(id) {
    return this.list.find((folder) => folder.id === id) ?? null;
  }

  async refresh() {
    const answer = await get('/api/folders');
    this.list = answer.folders ?? [];
    this.render();
    this.dispatchEvent(new Event('change'));
  }

  /** Marks the open folder in the list (null: none). */
  setCurrent(id) {
    this.current = id;
    this.render();
  }

  render() {
    const list = $('folder-list');
    list.replaceChildren();
    for (const folder of this.list) {
      const li = document.createElement('li');
      const button = document.createElement('button');
      button.type = 'button';
      button.className = 'nav-item folder-item';
      button.dataset.folderId = folder.id;
      button.style.paddingInlineStart = 'calc(var(--space-3) + ' + depth(folder) * 16 + 'px)';
      if (folder.id === this.current) button.setAttribute('aria-current', 'page');
      const locked = folder.protected && !folder.unlocked;
      button.classList.toggle('locked', locked);
      button.append(icon(locked ? 'lock' : folder.protected ? 'unlock' : 'folder'));
      const label = document.createElement('span');
      label.className = 'nav-label';
      label.textContent = folder.name;
      button.append(label);
      const countLabel = document.createElement('span');
      countLabel.className = 'nav-count';
      countLabel.textContent = locked ? '' : String(folder.itemCount ?? '');
      button.append(countLabel);
      button.setAttribute('aria-label', folder.path + (locked ? ', locked' : folder.protected ? ', unlocked' : '')
        + (locked ? '' : ', ' + (folder.itemCount ?? 0) + ' items'));
      button.addEventListener('click', () => this.open(folder));
      li.append(button);
      list.append(li);
    }
    $('folder-empty').hidden = this.list.length > 0;
  }

  /** The folders directly inside `folder`, in the list's order. */
  childrenOf(folder) {
    return this.list.filter((child) => child.parentId === folder.id);
  }

  /** A button that opens `folder`: its icon, name and item count (none while locked). */
  button(folder) {
    const button = document.createElement('button');
    button.type = 'button';
    button.className = 'btn btn-small subfolder';
    button.dataset.folderId = folder.id;
    const locked = folder.protected && !folder.unlocked;
    button.append(icon(locked ? 'lock' : folder.protected ? 'unlock' : 'folder'));
    const label = document.createElement('span');
    label.textContent = folder.name;
    button.append(label);
    if (!locked) {
      const held = document.createElement('span');
      held.className = 'subfolder-count';
      held.textContent = String(folder.itemCount ?? 0);
      button.append(held);
    }
    button.setAttribute('aria-label', folder.name + (locked ? ', locked' : ', ' + count(folder.itemCount ?? 0, 'item', 'items')));
    button.addEventListener('click', () => this.open(folder));
    return button;
  }

  /** Opens a folder, asking for its password first when it is locked. */
  async open(folder) {
    if (folder.protected && !folder.unlocked) {
      const unlocked = await this.unlock(folder);
      if (!unlocked) return;
      folder = this.byId(folder.id) ?? folder;
    }
    this.onOpen(folder);
  }

  /** Opens the new-folder dialog; resolves the folder made, or null when cancelled.
   * `parents` are the folders offered under "Inside": never a protected one (they hold
   * no folders), and from the move dialog only where the move may go. */
  create(parentId = null, parents = this.list.filter((folder) => !folder.protected)) {
    this.created = null;
    $('folder-name').value = '';
    $('folder-protect').checked = false;
    $('folder-password-fields').hidden = true;
    $('folder-password').value = '';
    $('folder-password-confirm').value = '';
    this.strength.reset();
    fillSelect($('folder-parent'), parents, 'Top level', parentId ?? this.current ?? '');
    const dialog = $('folder-dialog');
    dialog.returnValue = '';
    openDialog(dialog);
    $('folder-name').focus();
    return new Promise((resolve) => {
      dialog.addEventListener('close', () => resolve(dialog.returnValue === 'done' ? this.created : null), { once: true });
    });
  }

  async submitCreate(event) {
    event.preventDefault();
    const error = $('folder-error');
    const name = $('folder-name').value.trim();
    if (!name || name.includes('/')) {
      showError(error, name ? 'A name cannot contain “/”. Use “Inside” to nest folders.' : 'Give the folder a name.');
      return;
    }
    const parent = this.byId($('folder-parent').value);
    const body = { path: parent ? parent.path + '/' + name : name };
    if ($('folder-protect').checked) {
      const password = $('folder-password').value;
      if (!password) return showError(error, 'Choose a password for the folder.');
      if (password !== $('folder-password-confirm').value) return showError(error, 'The two passwords differ.');
      if (!(await this.strength.ready())) {
        return showError(error, WEAK_PASSWORD_MESSAGE);
      }
      body.password = password;
      body.allowWeak = this.strength.allowWeak();
    }
    try {
      const folder = await busy($('folder-submit'), 'Creating…', () => post('/api/folders', body));
      this.created = folder;
      await this.refresh();
      $('folder-dialog').close('done');
      toast('Folder “' + folder.path + '” created');
    } catch (failure) {
      showError(error, failure.status === 409 ? 'A folder with that name exists here.' : failure.message);
    }
  }

  /** Asks for the folder's password; resolves true once the server unlocked it. */
  unlock(folder) {
    this.unlocking = folder;
    $('folder-unlock-title').textContent = 'Unlock “' + folder.name + '”';
    $('folder-unlock-password').value = '';
    openDialog($('folder-unlock-dialog'));
    $('folder-unlock-password').focus();
    return new Promise((resolve) => {
      $('folder-unlock-dialog').addEventListener('close', () => {
        resolve($('folder-unlock-dialog').returnValue === 'unlocked');
      }, { once: true });
      $('folder-unlock-dialog').returnValue = '';
    });
  }

  async submitUnlock(event) {
    event.preventDefault();
    const folder = this.unlocking;
    const error = $('folder-unlock-error');
    const password = $('folder-unlock-password').value;
    if (!password) return showError(error, 'Enter the folder password.');
    try {
      await busy($('folder-unlock-submit'), 'Unlocking…', () =>
        post('/api/folders/' + encodeURIComponent(folder.id) + '/unlock', { password }));
      // The list first: whoever waits on the dialog finds the folder unlocked in it.
      await this.refresh();
      $('folder-unlock-dialog').close('unlocked');
    } catch (failure) {
      showError(error, sessionTrouble(failure) ?? (failure.status === 401 ? 'Wrong folder password.' : failure.message));
      $('folder-unlock-password').select();
      // Folder passwords meet the same progressive delay as the vault's.
      if (failure.retryAfter) this.waitBeforeRetry(failure.retryAfter);
    }
  }

  /** Disables the unlock button for `seconds`, counting down on it. */
  waitBeforeRetry(seconds) {
    const submit = $('folder-unlock-submit');
    const until = Date.now() + seconds * 1000;
    clearInterval(this.waitTimer);
    const tick = () => {
      const left = Math.ceil((until - Date.now()) / 1000);
      submit.disabled = left > 0;
      submit.textContent = left > 0 ? 'Try again in ' + left + ' s' : 'Unlock';
      if (left <= 0) {
        clearInterval(this.waitTimer);
        showError($('folder-unlock-error'), 'The wait is over. You can try again now.');
      }
    };
    this.waitTimer = setInterval(tick, 250);
    tick();
  }

  async lock(folder) {
    await post('/api/folders/' + encodeURIComponent(folder.id) + '/lock');
    await this.refresh();
    toast('“' + folder.name + '” is locked');
  }

  async remove(folder) {
    // Said before asking, not after a confirmation (issue 16): only an empty folder goes.
    const items = folder.itemCount ?? 0;
    const children = this.list.filter((other) => other.parentId === folder.id).length;
    if (items || children) {
      const held = [items ? count(items, 'item', 'items') : '', children ? count(children, 'folder', 'folders') : '']
        .filter(Boolean).join(' and ');
      toast('“' + folder.name + '” holds ' + held + '. Move them out first: only an empty folder can be deleted.', 'error');
      return false;
    }
    const ok = await confirmAction({
      title: 'Delete “' + folder.name + '”?',
      text: 'The folder is empty. Deleting it cannot be undone.',
      action: 'Delete folder',
    });
    if (!ok) return false;
    try {
      await post('/api/folders/' + encodeURIComponent(folder.id) + '/delete');
    } catch (failure) {
      toast(failure.status === 409 ? 'The folder is not empty. Move its photos out first.' : failure.message, 'error');
      return false;
    }
    await this.refresh();
    return true;
  }

  /** Asks where to move `count` items; resolves a folder id, null for the top level,
   * or undefined when cancelled. It starts at the top level (issue 16). */
  chooseTarget(count) {
    return this.ask({
      title: 'Move ' + count + (count === 1 ? ' item' : ' items'),
      choices: () => this.list.filter((folder) => !folder.protected || folder.unlocked),
    });
  }

  /** The move dialog: `choices()` lists the folders offered (asked again after "New folder"). */
  ask({ title, choices }) {
    const dialog = $('move-dialog');
    this.moveChoices = choices;
    $('move-title').textContent = title;
    fillSelect($('move-target'), choices(), 'No folder (top level)', '');
    dialog.returnValue = '';
    openDialog(dialog);
    $('move-target').focus();
    return new Promise((resolve) => {
      dialog.addEventListener('close', () => {
        resolve(dialog.returnValue === 'move' ? ($('move-target').value || null) : undefined);
      }, { once: true });
    });
  }

  /** "New folder" inside the move dialog: made inside the folder chosen so far, then chosen. */
  async createInMoveDialog() {
    const parent = this.byId($('move-target').value);
    // Only where the move may go, and never inside a protected folder.
    const parents = this.moveChoices().filter((f) => !f.protected);
    const folder = await this.create(parent && !parent.protected ? parent.id : '', parents);
    const offered = this.moveChoices(); // asked again: the list now has the new folder
    const chosen = folder && offered.some((f) => f.id === folder.id) ? folder.id : $('move-target').value;
    fillSelect($('move-target'), offered, 'No folder (top level)', chosen);
    $('move-target').focus();
  }

  rename(folder) {
    this.renaming = folder;
    $('rename-title').textContent = 'Rename “' + folder.name + '”';
    $('rename-name').value = folder.name;
    openDialog($('rename-dialog'));
    $('rename-name').select();
  }

  async submitRename(event) {
    event.preventDefault();
    const folder = this.renaming;
    const error = $('rename-error');
    const name = $('rename-name').value.trim();
    if (!name || name.includes('/')) {
      return showError(error, name ? 'A name cannot contain “/”. Use Move to put a folder inside another.' : 'Give the folder a name.');
    }
    try {
      await busy($('rename-submit'), 'Renaming…', () =>
        post('/api/folders/' + encodeURIComponent(folder.id) + '/rename', { name }));
      $('rename-dialog').close('done');
      await this.refresh();
      toast('Renamed to “' + name + '”');
    } catch (failure) {
      showError(error, failure.status === 409 ? 'A folder with that name exists here.' : failure.message);
    }
  }

  /** Moves `folder`, with everything in it, under another folder or to the top level. */
  async move(folder) {
    // Bounded by the list's length: a damaged catalog's parents could loop.
    const below = (other) => {
      let id = other.id;
      for (let steps = 0; id && steps <= this.list.length; steps += 1, id = this.byId(id)?.parentId) {
        if (id === folder.id) return true;
      }
      return false;
    };
    const parent = await this.ask({
      title: 'Move “' + folder.name + '”',
      // Not into itself or below itself, nor into a protected folder (they hold no folders).
      choices: () => this.list.filter((other) => !other.protected && !below(other)),
    });
    if (parent === undefined) return;
    try {
      const moved = await post('/api/folders/' + encodeURIComponent(folder.id) + '/move', { parent });
      await this.refresh();
      toast('Moved to “' + moved.path + '”');
    } catch (failure) {
      toast(failure.status === 409 ? 'A folder with that name is already there.' : failure.message, 'error');
    }
  }
}

function depth(folder) {
  return folder.path.split('/').length - 1;
}

function fillSelect(select, folders, noneLabel, selected) {
  select.replaceChildren(new Option(noneLabel, ''));
  for (const folder of folders) {
    const option = new Option('\u00a0\u00a0'.repeat(depth(folder)) + folder.name, folder.id);
    option.title = folder.path;
    select.append(option);
  }
  select.value = selected;
  if (select.value !== selected) select.value = '';
}
