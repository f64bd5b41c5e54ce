// selection.js: which items are selected for a bulk action. Fires 'change'.

export class Selection extends EventTarget {
  constructor() {
    super();
    this.ids = new Set();
    this.anchor = -1;
  }

  get size() {
    return this.ids.size;
  }

  has(id) {
    return this.ids.has(id);
  }

  toggle(id, index) {
    if (this.ids.has(id)) this.ids.delete(id);
    else this.ids.add(id);
    this.anchor = index;
    this.changed();
  }

  /** Shift-click: selects everything between the last toggled item and `index`. */
  extendTo(index, items) {
    const from = this.anchor < 0 ? index : this.anchor;
    const [lo, hi] = from < index ? [from, index] : [index, from];
    for (let i = lo; i <= hi && i < items.length; i++) this.ids.add(items[i].id);
    this.anchor = index;
    this.changed();
  }

  /** Selects (or with `on` false, unselects) every id in `ids`: a whole day at once. */
  setAll(ids, on) {
    for (const id of ids) {
      if (on) this.ids.add(id);
      else this.ids.delete(id);
    }
    this.changed();
  }

  /** Keeps only the ids in `present` (the items on show): an item that left the view
   * (unfavourited in Favourites, deleted, moved away, a reload) leaves the selection,
   * so no action can reach what is not on screen. */
  retain(present) {
    const before = this.ids.size;
    for (const id of this.ids) if (!present.has(id)) this.ids.delete(id);
    if (this.ids.size !== before) this.changed();
  }

  clear() {
    if (!this.ids.size) return;
    this.ids.clear();
    this.anchor = -1;
    this.changed();
  }

  changed() {
    this.dispatchEvent(new Event('change'));
  }
}
