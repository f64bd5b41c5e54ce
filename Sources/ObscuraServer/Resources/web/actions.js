// actions.js: the selection bar: favourite, move, download (one ZIP), an end and
// (confirmed) delete to the trash of the selected items; in the trash, restore
// and (confirmed) delete for good.

import { csrfToken, post } from './api.js';
import { confirmAction, openDialog, toast } from './dialogs.js';
import { openEndDialog } from './ends.js';

const $ = (id) => document.getElementById(id);

export function wireSelectionBar({ catalog, selection, folders, library }) {
  const paint = () => {
    const n = selection.size;
    $('selection-bar').hidden = n === 0;
    $('selection-count').textContent = n + ' selected';
    document.body.classList.toggle('has-selection', n > 0);
    const trash = library.view.view === 'trash';
    for (const id of ['sel-favorite', 'sel-move', 'sel-end', 'sel-delete']) $(id).hidden = trash;
    for (const id of ['sel-restore', 'sel-delete-forever']) $(id).hidden = !trash;
  };
  selection.addEventListener('change', paint);
  catalog.addEventListener('change', () => selection.retain(new Set(catalog.items.map((item) => item.id))));

  const selected = () => catalog.items.filter((item) => selection.has(item.id));

  $('sel-clear').addEventListener('click', () => selection.clear());
  document.addEventListener('keydown', (event) => {
    // Keys for the grid: none while a dialog, the viewer or a text field has them.
    if (event.defaultPrevented || document.querySelector('dialog[open]') || !$('viewer').hidden) return;
    if ($('app-view').hidden || isTyping(event.target)) return;
    const command = event.ctrlKey || event.metaKey;
    if (event.key === 'Escape' && selection.size) {
      selection.clear();
    } else if ((event.key === 'Delete' || (event.key === 'Backspace' && event.metaKey)) && selection.size) {
      // Confirmed as the button is: to the trash, or in the trash for good.
      event.preventDefault();
      $(library.view.view === 'trash' ? 'sel-delete-forever' : 'sel-delete').click();
    } else if (command && !event.altKey && !event.shiftKey && event.key.toLowerCase() === 'a') {
      // The items on show, not the page's text.
      event.preventDefault();
      selection.setAll(catalog.items.map((item) => item.id), true);
    } else if (event.key === '?' && !command && !event.altKey) {
      event.preventDefault();
      openDialog($('shortcuts-dialog'));
    }
  });

  $('sel-favorite').addEventListener('click', async () => {
    const items = selected();
    const favorite = !items.every((item) => item.favorite);
    try {
      for (const item of items) {
        catalog.update(await post('/api/items/' + encodeURIComponent(item.id) + '/favorite', { favorite }));
      }
      toast(favorite ? 'Added to favourites' : 'Removed from favourites');
    } catch (failure) {
      toast(failure.message, 'error');
    }
  });

  $('sel-move').addEventListener('click', async () => {
    const ids = selected().map((item) => item.id);
    const target = await folders.chooseTarget(ids.length);
    if (target === undefined) return;
    try {
      await post('/api/items/move', { ids, folder: target });
      selection.clear();
      const name = target ? folders.byId(target)?.path : 'the top level';
      toast('Moved ' + ids.length + (ids.length === 1 ? ' item' : ' items') + ' to ' + name);
      await Promise.all([folders.refresh(), library.refresh()]);
    } catch (failure) {
      toast(failure.message, 'error');
    }
  });

  // One ZIP, streamed by the server as it decrypts each original, saved by the browser
  // itself: nothing of it passes through the page's memory.
  $('sel-download').addEventListener('click', () => {
    const form = $('zip-form');
    const field = (name, value) => Object.assign(document.createElement('input'), { type: 'hidden', name, value });
    form.replaceChildren(field('csrf', csrfToken()), ...selected().map((item) => field('id', item.id)));
    form.submit();
    form.replaceChildren();
    toast('Preparing the download of ' + selection.size + (selection.size === 1 ? ' item' : ' items'));
  });

  $('sel-end').addEventListener('click', () => {
    const ids = selected().map((item) => item.id);
    openEndDialog(ids, (updated) => {
      for (const item of updated) catalog.update(item);
      selection.clear();
      const ends = updated.some((item) => item.endsAt != null || item.viewsLeft != null);
      toast((ends ? 'Gave ' : 'Took the end away from ') + items(updated.length) + (ends ? ' an end' : ''));
    });
  });

  $('sel-delete').addEventListener('click', async () => {
    const ids = selected().map((item) => item.id);
    const ok = await confirmAction({
      title: 'Move ' + items(ids.length) + ' to the trash?',
      text: (ids.length === 1 ? 'It stays' : 'They stay') + ' in the Trash for 30 days, where you can restore '
        + (ids.length === 1 ? 'it' : 'them') + ', then ' + (ids.length === 1 ? 'is' : 'are') + ' deleted for good.',
      action: 'Move to trash',
    });
    if (!ok) return;
    await leaveView(ids, '/api/items/delete', 'Moved ' + items(ids.length) + ' to the trash', {
      label: 'Undo',
      run: () => undoDelete(ids, catalog, folders),
    });
  });

  $('sel-restore').addEventListener('click', async () => {
    const ids = selected().map((item) => item.id);
    await leaveView(ids, '/api/trash/restore', 'Restored ' + items(ids.length));
  });

  $('sel-delete-forever').addEventListener('click', async () => {
    const ids = selected().map((item) => item.id);
    const ok = await confirmAction({
      title: 'Delete ' + items(ids.length) + ' for good?',
      text: (ids.length === 1 ? 'It is' : 'They are') + ' erased from the vault. This cannot be undone.',
      action: 'Delete for good',
    });
    if (!ok) return;
    await leaveView(ids, '/api/trash/delete', 'Deleted ' + items(ids.length) + ' for good');
  });

  /** Posts `ids` to `path`, after which they leave the view on show; `undo` is offered
   * beside the message. */
  async function leaveView(ids, path, done, undo = null) {
    try {
      await post(path, { ids });
      selection.clear();
      catalog.drop(ids);
      toast(done, 'info', undo ? 8000 : undefined, undo);
      folders.refresh().catch(() => {});
    } catch (failure) {
      toast(failure.message, 'error');
    }
  }
}

function items(n) {
  return n + (n === 1 ? ' item' : ' items');
}

/** Whether keys typed at `target` are text (a field, an editor), not commands. */
function isTyping(target) {
  return target instanceof HTMLElement
    && (target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName));
}

/**
 * Takes `ids` back out of the trash (the Undo of a delete) and shows them again.
 */
export async function undoDelete(ids, catalog, folders) {
  try {
    await post('/api/trash/restore', { ids });
    toast('Restored ' + ids.length + (ids.length === 1 ? ' item' : ' items'));
    await Promise.all([catalog.reload(), folders?.refresh()]);
  } catch (failure) {
    toast(failure.message, 'error');
  }
}
