// main.js: starts the app and owns its one state switch, locked or open:
// unlock page or gallery, the lock button, the auto-lock watch, and what
// happens when the tab is hidden.

import { get, loadSession, onLocked, post, postKeepalive, sessionTrouble } from './api.js';
import { Catalog } from './catalog.js';
import { closeAllDialogs, toast } from './dialogs.js';
import { Folders } from './folders.js';
import { Grid } from './grid.js';
import { Library } from './library.js';
import { Notes } from './notes.js';
import { OuterKey } from './outerkey.js';
import { Router, viewOf } from './router.js';
import { Scrubber } from './scrubber.js';
import { Search } from './search.js';
import { addRevealButtons, hideAll } from './password.js';
import { Selection } from './selection.js';
import { Settings } from './settings.js';
import { createUnlockPage } from './unlock.js';
import { Uploader } from './upload.js';
import { Viewer } from './viewer.js';
import { wireSelectionBar } from './actions.js';

const $ = (id) => document.getElementById(id);
const WATCH_INTERVAL_MS = 1500;
// How far a reload of an item's address pages through its view to find it again.
const ITEM_SEARCH_LIMIT = 20000;

let open = false;
let watchTimer = 0;
let foldersReady = Promise.resolve();
let applying = 0;

const reportError = (error) => {
  if (error?.status === 401 && error.message === 'locked') return; // the lock handler shows the page
  toast(error?.message ?? String(error), 'error');
};

const catalog = new Catalog();
const selection = new Selection();
// Back with a dialog open closes the dialog and leaves the page behind it as it was.
const router = new Router((route) => apply(route), {
  closeOverlay: () => {
    if (!document.querySelector('dialog[open]')) return false;
    closeAllDialogs();
    return true;
  },
});
const folders = new Folders({ onOpen: (folder) => router.go({ view: 'folder', folderId: folder.id }) });
const library = new Library({
  catalog, folders, selection, onError: reportError,
  onNavigate: (view, options) => router.go(view, options),
});
const viewer = new Viewer({
  catalog,
  folders,
  onClose: (index) => {
    grid.catchUp();
    grid.reveal(index);
    grid.focusTile(index);
  },
  onRequestClose: () => router.closeItem(),
  onShow: (item) => router.note({ ...viewOf(router.current()), itemId: item.id }),
});
const grid = new Grid({
  scroller: $('grid-scroller'),
  canvas: $('grid-canvas'),
  catalog,
  selection,
  // A note opens in its own view, not the photo viewer.
  onOpen: (index) => catalog.items[index].kind === 'note'
    ? notes.open(catalog.items[index].id).catch(reportError)
    : router.go({ ...viewOf(library.view), itemId: catalog.items[index].id }),
  onError: reportError,
});
new Scrubber({ catalog, grid, onError: reportError });
const refreshAfterUploads = () => {
  library.refresh();
  folders.refresh().catch(reportError);
};
const refreshDuringUploads = throttle(refreshAfterUploads, 3000); // a long batch shows its first items early
const uploader = new Uploader({
  target: () => library.folder(),
  canDrop: () => open && !viewer.isOpen,
  onUploaded: refreshDuringUploads,
  onSettled: () => {
    refreshDuringUploads.cancel();
    refreshAfterUploads();
  },
});
// A note made, deleted or ended in a folder changes the folder's count.
const notes = new Notes({
  folder: () => library.folder(),
  onChange: () => {
    library.refresh();
    folders.refresh().catch(reportError);
  },
  onError: reportError,
});
const search = new Search({ onChange: (value) => catalog.setSearch(value).catch(reportError) });
library.onViewChange = () => search.clear();
const outerKey = new OuterKey();
const settings = new Settings({ onAutoLockChange: () => {}, outerKey });
wireSelectionBar({ catalog, selection, folders, library });
const unlockPage = createUnlockPage({ onUnlocked: enter });
addRevealButtons();

$('upload-button').addEventListener('click', () => uploader.pick());
$('empty-upload').addEventListener('click', () => uploader.pick());
$('lock-button').addEventListener('click', lockNow);
$('drops-show').addEventListener('click', showDrops);
onLocked(() => {
  if (open) leave('The vault locked itself after a while without use. Unlock it to go on.');
});
document.addEventListener('visibilitychange', visibilityChanged);
// The printed link pasted into a tab that already shows the page changes only the
// fragment, which loads nothing: start again so the token is read.
window.addEventListener('hashchange', () => {
  if (/token=/.test(location.hash)) location.reload();
});

boot();

async function boot() {
  try {
    const session = await loadSession();
    if (session.unlocked) enter();
    else leave('', session.suggestCreate);
  } catch (error) {
    leave();
    unlockPage.show(sessionTrouble(error) ?? error.message);
  } finally {
    $('boot').hidden = true;
  }
}

/** Shows the gallery of the vault the session has open; `unlocked` (from the unlock
 * page: `{ created }`) says the password was just given, when the outer key's state is
 * worth a word. */
function enter(unlocked = null) {
  open = true;
  $('unlock-view').hidden = true;
  $('app-view').hidden = false;
  document.body.dataset.state = 'open';
  foldersReady = folders.refresh().catch(reportError);
  // After unlocking, the keyboard starts on the first photo (issue 16): the form it
  // was in is gone.
  router.remember();
  apply(router.current()).then(() => {
    if (open && !viewer.isOpen && !document.querySelector('dialog[open]')) grid.focusTile(0);
  });
  clearInterval(watchTimer);
  watchTimer = setInterval(watch, WATCH_INTERVAL_MS);
  settings.backup.start();
  if (unlocked) outerKey.remind(unlocked);
}

/** Back to the unlock page, dropping every decrypted thing the page holds; with
 * `create`, the page leads with creating a vault (a directory the server just made). */
function leave(message = '', create = false) {
  open = false;
  clearInterval(watchTimer);
  settings.backup.stop();
  viewer.close();
  closeAllDialogs();
  outerKey.forgetAll();
  settings.forget();
  hideAll();
  uploader.reset();
  selection.clear();
  search.clear();
  library.started = false;
  catalog.search = {};
  catalog.reset();
  grid.clear();
  folders.list = [];
  folders.render();
  $('app-view').hidden = true;
  $('unlock-view').hidden = false;
  document.body.dataset.state = 'locked';
  document.body.classList.remove('sidebar-open', 'viewing');
  document.title = 'Obscura';
  $('toast').hidden = true; // it may name a file or folder
  $('drops-show').hidden = true;
  unlockPage.show(message, create);
}

/**
 * Shows what `route` names: its view (asking for a protected folder's password first),
 * then its item in the viewer, paging through the view to find it after a reload. A
 * folder or item that is not there (deleted, or of another vault) gives way to its view
 * or to all photos, rewriting the address. A newer route overtakes one still loading.
 */
async function apply(route) {
  if (!open) return;
  const ticket = ++applying;
  const stale = () => ticket !== applying || !open;
  let view = { view: ['favorites', 'trash'].includes(route.view) ? route.view : 'all' };
  if (route.view === 'folder') {
    await foldersReady;
    if (stale()) return;
    let folder = folders.byId(route.folderId);
    if (!folder) {
      // Made in another tab, say: the list is asked for once more before giving up.
      await folders.refresh().catch(reportError);
      if (stale()) return;
      folder = folders.byId(route.folderId);
    }
    if (folder?.protected && !folder.unlocked) {
      const unlocked = await folders.unlock(folder);
      if (stale()) return;
      folder = unlocked ? folders.byId(folder.id) : null;
    }
    if (!folder) return router.go({ view: 'all' }, { replace: true });
    view = { view: 'folder', folderId: folder.id };
  }
  if (!library.showing(view)) await library.show(view);
  if (stale()) return;
  if (!route.itemId) return viewer.close();
  let index = catalog.indexOf(route.itemId);
  while (index < 0 && !catalog.done && catalog.items.length < ITEM_SEARCH_LIMIT) {
    await catalog.loadMore().catch(reportError);
    if (stale()) return;
    index = catalog.indexOf(route.itemId);
  }
  if (index < 0) return router.go(viewOf(route), { replace: true });
  if (viewer.isOpen) viewer.show(index);
  else {
    grid.reveal(index);
    viewer.open(index);
  }
}

async function lockNow() {
  try {
    await post('/api/lock');
  } catch (error) {
    if (error.status !== 401) return reportError(error);
  }
  leave();
}

/**
 * The server locks the vault on its own after the auto-lock delay. Asking for
 * the session (which does not count as use) notices that while nobody clicks.
 */
async function watch() {
  if (!open || document.hidden) return;
  try {
    const session = await get('/api/session');
    if (!session.unlocked && open) leave('The vault locked itself after a while without use. Unlock it to go on.');
    else tellDrops(session);
  } catch {
    // the server may be restarting; the next round tells
  }
}

/**
 * Drops taken in while the vault is open (the server looks every few seconds): said
 * once, as an unlock says them; a refusal stays up long enough to read. The grid is
 * reloaded only when the owner asks ("Show"): a reload is a request, and requests count
 * as use, so reloading by itself would let whoever holds the public drop code keep an
 * unattended tab from auto-locking (docs/PHONE.md §W6.2).
 */
function tellDrops(session) {
  if (!session.drops || !open) return;
  toast(session.drops, session.dropsRefused ? 'error' : 'info', session.dropsRefused ? 15000 : 8000);
  $('drops-show').hidden = false;
}

/** The owner's "Show": the grid and the folders as they are now. */
function showDrops() {
  $('drops-show').hidden = true;
  library.refresh();
  folders.refresh().catch(reportError);
}

/** Hidden: blur the page and let the server drop folder keys. Visible again: catch up. */
function visibilityChanged() {
  if (document.hidden) {
    document.body.classList.add('obscured');
    if (open) postKeepalive('/api/visibility', { hidden: true });
    return;
  }
  document.body.classList.remove('obscured');
  if (!open) return;
  post('/api/visibility', { hidden: false })
    .then(() => get('/api/session'))
    .then((session) => {
      if (!session.unlocked) return leave('The vault locked while the tab was hidden.');
      tellDrops(session);
      const hadOpenFolder = folders.list.some((folder) => folder.protected && folder.unlocked);
      return folders.refresh().then(() => {
        if (hadOpenFolder) library.refresh();
      });
    })
    .catch(reportError);
}

/** Runs `fn` at most once per `ms`, always once more after the last call. */
function throttle(fn, ms) {
  let last = 0;
  let timer = 0;
  const run = () => {
    if (timer) return;
    timer = setTimeout(() => {
      timer = 0;
      last = Date.now();
      fn();
    }, Math.max(0, last + ms - Date.now()));
  };
  run.cancel = () => {
    clearTimeout(timer);
    timer = 0;
  };
  return run;
}
