// search.js: the search row: text (names and places), kind, and a range of
// capture days, narrowing whichever set is on show. It lives in the page only:
// never in the address or its history (docs/SECURITY.md, "The browser").

const $ = (id) => document.getElementById(id);
const TYPING_PAUSE_MS = 250;

export class Search {
  /** `onChange(search)` runs with {q, kind, from, to} whenever the person changes one. */
  constructor({ onChange }) {
    this.onChange = onChange;
    this.timer = 0;
    $('search-form').addEventListener('submit', (event) => {
      event.preventDefault();
      this.apply();
    });
    $('search-text').addEventListener('input', () => {
      clearTimeout(this.timer);
      this.timer = setTimeout(() => this.apply(), TYPING_PAUSE_MS);
    });
    for (const id of ['search-kind', 'search-from', 'search-to']) $(id).addEventListener('change', () => this.apply());
    $('search-filters').addEventListener('click', () => this.showFilters(!$('search-form').classList.contains('filters-open')));
    $('search-clear').addEventListener('click', () => {
      this.clear();
      this.apply();
      $('search-text').focus();
    });
    document.addEventListener('keydown', (event) => {
      // "/" jumps to the search, as in many galleries, unless the person is typing.
      if (event.key !== '/' || event.ctrlKey || event.metaKey || event.altKey) return;
      if (event.target.closest?.('input, textarea, select, dialog') || !$('viewer').hidden) return;
      event.preventDefault();
      $('search-text').focus();
    });
  }

  /** What the form asks for; empty fields are left out. */
  value() {
    const search = {
      q: $('search-text').value.trim(),
      kind: $('search-kind').value,
      from: $('search-from').value,
      to: $('search-to').value,
    };
    return Object.fromEntries(Object.entries(search).filter(([, v]) => v));
  }

  apply() {
    clearTimeout(this.timer);
    const search = this.value();
    $('search-clear').hidden = Object.keys(search).length === 0;
    this.onChange(search);
  }

  /** Shows or hides the kind and days where they wait behind "Filters" (a phone). */
  showFilters(open) {
    $('search-form').classList.toggle('filters-open', open);
    $('search-filters').setAttribute('aria-expanded', String(open));
  }

  /** Empties the form without searching (a new view, a lock). */
  clear() {
    clearTimeout(this.timer);
    $('search-form').reset();
    $('search-clear').hidden = true;
    this.showFilters(false);
  }
}
