// catalog.js: the items on show, fetched page by page with the server's opaque
// cursor, in the server's order (newest capture first; in the trash, latest
// deleted first), narrowed by the search when there is one. Fires 'change'.

import { get } from './api.js';
import { dayKey } from './format.js';

const FIRST_PAGE = 200;
const NEXT_PAGE = 500;

export class Catalog extends EventTarget {
  constructor() {
    super();
    this.filter = { view: 'all' };
    this.search = {};
    this.reset();
  }

  reset() {
    this.items = [];
    this.total = 0;
    this.cursor = null;
    this.done = false;
    this.loaded = false;
    this.pending = null;
    this.generation = (this.generation ?? 0) + 1;
    this.epoch = (this.epoch ?? 0) + 1;
  }

  /** Shows another set: {view: 'all'} | {view: 'favorites'} | {view: 'trash'} | {view: 'folder', folderId}. */
  show(filter) {
    this.filter = filter;
    return this.reload();
  }

  /** Narrows the set to a search: {q, kind, from, to}, each optional (docs/API.md). */
  setSearch(search) {
    this.search = search;
    return this.reload();
  }

  /** Whether a search narrows the set. */
  get searching() {
    return Object.values(this.search).some(Boolean);
  }

  reload() {
    this.reset();
    this.changed();
    return this.loadMore();
  }

  /** Fetches the next page unless one is on its way or none is left. */
  loadMore() {
    if (this.done) return Promise.resolve();
    if (this.pending) return this.pending;
    const generation = this.generation;
    const query = new URLSearchParams({ limit: String(this.items.length ? NEXT_PAGE : FIRST_PAGE) });
    if (this.cursor) query.set('cursor', this.cursor);
    if (this.filter.view === 'favorites') query.set('favorites', '1');
    if (this.filter.view === 'trash') query.set('trash', '1');
    if (this.filter.view === 'folder') query.set('folder', this.filter.folderId);
    for (const [key, value] of Object.entries(this.search)) if (value) query.set(key, value);
    this.pending = get('/api/items?' + query.toString()).then((page) => {
      if (generation !== this.generation) return;
      for (const item of page.items) this.items.push(item);
      this.total = Math.max(page.total ?? 0, this.items.length);
      this.cursor = page.nextCursor ?? null;
      this.done = !this.cursor;
      this.loaded = true;
      this.changed();
    }).finally(() => {
      if (generation === this.generation) this.pending = null;
    });
    return this.pending;
  }

  /** Loads pages until `index` exists or the list ends. */
  async ensure(index) {
    while (index >= this.items.length && !this.done) {
      const generation = this.generation;
      await this.loadMore();
      if (generation !== this.generation) return;
    }
  }

  indexOf(id) {
    return this.items.findIndex((item) => item.id === id);
  }

  /** Replaces an item in place (after a favourite toggle, say). */
  update(item) {
    const index = this.indexOf(item.id);
    if (index < 0) return;
    const keep = this.filter.view !== 'favorites' || item.favorite;
    const old = this.items[index];
    if (keep) {
      this.items[index] = item;
      // A new end changes what its tile shows (a badge; no thumbnail once it has views):
      // the grid builds its tiles again.
      if (old.hasThumbnail !== item.hasThumbnail || old.viewsLeft !== item.viewsLeft || old.endsAt !== item.endsAt) this.epoch += 1;
    } else this.drop([item.id]);
    this.changed();
  }

  /** Removes items that left this view (deleted or moved away). */
  drop(ids) {
    const gone = new Set(ids);
    const before = this.items.length;
    this.items = this.items.filter((item) => !gone.has(item.id));
    this.total = Math.max(0, this.total - (before - this.items.length));
    this.epoch += 1;
    this.changed();
  }

  changed() {
    this.dispatchEvent(new Event('change'));
  }
}

/** Seconds since 1970 by which the grid sorts and groups an item: in the trash (the only
 * place a trashed item shows), the time of its delete, as the server orders it. */
export function captureTime(item) {
  return item.deletedAt ?? item.takenAt ?? item.importedAt;
}

const days = new WeakMap();

/** The item's local capture day (yyyymmdd), computed once per item. */
export function captureDay(item) {
  let day = days.get(item);
  if (day === undefined) {
    day = dayKey(captureTime(item));
    days.set(item, day);
  }
  return day;
}
