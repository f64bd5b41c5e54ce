// library.js: which set of items is on show (all, favourites, the trash, one
// folder), and the parts of the page that follow it: title, count, empty state,
// sidebar highlight, folder and trash actions.

import { count } from './format.js';
import { post } from './api.js';
import { confirmAction, toast } from './dialogs.js';

const $ = (id) => document.getElementById(id);

export class Library {
  constructor({ catalog, folders, selection, onError, onNavigate }) {
    this.catalog = catalog;
    this.onNavigate = onNavigate;
    this.started = false;
    this.folders = folders;
    this.selection = selection;
    this.onError = onError;
    this.view = { view: 'all' };

    for (const button of document.querySelectorAll('#library-list .nav-item')) {
      button.addEventListener('click', () => this.onNavigate({ view: button.dataset.view }));
    }
    catalog.addEventListener('change', () => this.paint());
    folders.addEventListener('change', () => this.foldersChanged());
    $('folder-lock-button').addEventListener('click', () => this.lockFolder());
    $('folder-delete-button').addEventListener('click', () => this.deleteFolder());
    $('folder-rename-button').addEventListener('click', () => this.folder() && this.folders.rename(this.folder()));
    $('folder-move-button').addEventListener('click', () => this.folder() && this.folders.move(this.folder()));
    $('trash-empty-button').addEventListener('click', () => this.emptyTrash());
    $('sidebar-toggle').addEventListener('click', () => this.toggleSidebar());
    $('sidebar-scrim').addEventListener('click', () => this.toggleSidebar(false));
  }

  /** The open folder, or null. */
  folder() {
    return this.view.view === 'folder' ? this.folders.byId(this.view.folderId) : null;
  }

  /** Whether `view` is the set on show (and has been asked for). */
  showing(view) {
    return this.started && this.view.view === view.view && (view.view !== 'folder' || this.view.folderId === view.folderId);
  }

  show(view) {
    this.view = view;
    this.started = true;
    this.selection.clear();
    // A search narrows the view it was typed in; a new view starts whole.
    this.onViewChange?.();
    this.catalog.search = {};
    this.folders.setCurrent(view.view === 'folder' ? view.folderId : null);
    this.toggleSidebar(false);
    $('grid-scroller').scrollTop = 0;
    this.paint();
    return this.catalog.show(view).catch(this.onError);
  }

  /** Fetches the current set again (after uploads, a move, a folder unlock...). */
  refresh() {
    return this.catalog.reload().catch(this.onError);
  }

  foldersChanged() {
    const folder = this.folder();
    if (this.view.view === 'folder' && (!folder || (folder.protected && !folder.unlocked))) {
      this.onNavigate({ view: 'all' }, { replace: true }); // the open folder went away or locked
      return;
    }
    this.paint();
  }

  paint() {
    for (const button of document.querySelectorAll('#library-list .nav-item')) {
      if (button.dataset.view === this.view.view) button.setAttribute('aria-current', 'page');
      else button.removeAttribute('aria-current');
    }
    const folder = this.folder();
    const trash = this.view.view === 'trash';
    const title = folder
      ? folder.path.replaceAll('/', ' › ')
      : { favorites: 'Favourites', trash: 'Trash' }[this.view.view] ?? 'All photos';
    $('view-title').textContent = title;
    document.title = title + ' · Obscura';
    const catalog = this.catalog;
    const found = catalog.searching ? count(catalog.total, 'match', 'matches') : count(catalog.total, 'item', 'items');
    $('view-count').textContent = !catalog.loaded ? '' : trash ? found + ' · kept 30 days' : found;
    $('folder-actions').hidden = !folder;
    $('folder-lock-button').hidden = !folder?.protected;
    $('trash-actions').hidden = !trash || catalog.total === 0 || catalog.searching;
    document.body.classList.toggle('in-trash', trash);

    // A folder's own folders, above its items: without them a parent holding only
    // folders looked empty.
    const children = folder && !catalog.searching ? this.folders.childrenOf(folder) : [];
    $('subfolders').hidden = children.length === 0;
    $('subfolders').replaceChildren(...children.map((child) => this.folders.button(child)));

    const empty = catalog.loaded && catalog.total === 0;
    $('empty-state').hidden = !empty;
    $('grid-canvas').hidden = empty;
    if (empty) {
      const texts = catalog.searching
        ? ['Nothing matches', 'Try another word, kind or range of days, or clear the search.', false]
        : trash
          ? ['The trash is empty', 'Deleted photos wait here for 30 days, so a delete can be undone.', false]
          : folder && children.length > 0
            ? ['No photos directly in this folder', 'It holds ' + count(children.length, 'folder', 'folders')
              + ': open one above. Or drop files here to keep them in this folder itself.', true]
          : folder
            ? ['This folder is empty — drop files here', 'Or move photos into it: select them in All photos and choose Move.', true]
            : this.view.view === 'favorites'
              ? ['No favourites yet', 'Open a photo and press the heart to keep it here.', false]
              : ['No photos yet — drop files here', 'Or choose them from your computer. They are encrypted as they arrive.', true];
      $('empty-title').textContent = texts[0];
      $('empty-text').textContent = texts[1];
      $('empty-upload').hidden = !texts[2];
    }
  }

  async lockFolder() {
    const folder = this.folder();
    if (!folder) return;
    try {
      await this.folders.lock(folder);
    } catch (failure) {
      toast(failure.message, 'error');
    }
  }

  async emptyTrash() {
    const ok = await confirmAction({
      title: 'Empty the trash?',
      text: 'Every item in it is erased from the vault for good. This cannot be undone.',
      action: 'Empty trash',
    });
    if (!ok) return;
    try {
      const { deleted } = await post('/api/trash/empty');
      toast('Deleted ' + count(deleted, 'item', 'items') + ' for good');
      await this.refresh();
    } catch (failure) {
      toast(failure.message, 'error');
    }
  }

  async deleteFolder() {
    const folder = this.folder();
    if (folder) await this.folders.remove(folder);
  }

  toggleSidebar(open = !document.body.classList.contains('sidebar-open')) {
    document.body.classList.toggle('sidebar-open', open);
    $('sidebar-toggle').setAttribute('aria-expanded', String(open));
    $('sidebar-scrim').hidden = !open;
  }
}
