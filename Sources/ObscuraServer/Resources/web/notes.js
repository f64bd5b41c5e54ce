// notes.js: notes (issue 19): the journal (every note by day), a note shown with its
// Markdown rendered safely and its attached photos, the editor, and the photo picker
// that attaches. A note's text lives in the page only while shown; the server keeps it
// sealed in the vault.

import { get, post, urls } from './api.js';
import { openDialog, showError, toast } from './dialogs.js';
import { dateTime, dayKey, dayLabel } from './format.js';
import { renderMarkdown } from './markdown.js';

const $ = (id) => document.getElementById(id);
// The most notes the journal lists, and photos the picker offers, in one page.
const JOURNAL_LIMIT = 500;
const PICKER_LIMIT = 200;

export class Notes {
  /** `folder()` is the folder new notes go to (the view's); `onChange()` runs after a note
   * is saved or its photos change, so the grid shows it. */
  constructor({ folder, onChange, onError }) {
    this.folder = folder;
    this.onChange = onChange;
    this.onError = onError;
    this.current = null;
    $('notes-button').addEventListener('click', () => this.openJournal().catch(onError));
    $('journal-new').addEventListener('click', () => {
      $('journal-dialog').close();
      this.edit(null);
    });
    $('note-edit-button').addEventListener('click', () => this.edit(this.current));
    $('note-attach-button').addEventListener('click', () => this.pickPhotos().catch(onError));
    $('note-edit-form').addEventListener('submit', (event) => {
      event.preventDefault();
      this.save();
    });
    $('note-attach-form').addEventListener('submit', (event) => {
      event.preventDefault();
      this.attachPicked();
    });
    // Closed, a note's text leaves the page.
    $('note-dialog').addEventListener('close', () => this.forget());
    $('note-edit-dialog').addEventListener('close', () => {
      $('note-edit-body').value = '';
      $('note-edit-title').value = '';
    });
  }

  /** The journal: notes grouped by day, newest first. */
  async openJournal() {
    const page = await get('/api/items?kind=note&limit=' + JOURNAL_LIMIT);
    const list = $('journal-list');
    list.replaceChildren();
    let day = null;
    let group = null;
    for (const item of page.items) {
      const when = item.takenAt ?? item.importedAt;
      if (dayKey(when) !== day) {
        day = dayKey(when);
        const section = document.createElement('section');
        section.className = 'journal-day';
        const heading = document.createElement('h3');
        heading.textContent = dayLabel(when);
        group = document.createElement('ul');
        group.className = 'journal-notes';
        section.append(heading, group);
        list.append(section);
      }
      const entry = document.createElement('li');
      const open = document.createElement('button');
      open.type = 'button';
      open.className = 'journal-note';
      open.dataset.id = item.id;
      const title = document.createElement('strong');
      title.textContent = item.name;
      const excerpt = document.createElement('span');
      excerpt.className = 'muted';
      excerpt.textContent = (item.excerpt ?? '').replace(/[#*_`>]/g, '').slice(0, 140);
      open.append(title, excerpt);
      open.addEventListener('click', () => {
        $('journal-dialog').close();
        this.open(item.id).catch(this.onError);
      });
      entry.append(open);
      group.append(entry);
    }
    $('journal-empty').hidden = page.items.length > 0;
    openDialog($('journal-dialog'));
  }

  /** Shows note `id`: its title, date, rendered body and attached photos. A note with a
   * views limit (ends, issue 19) is shown only inside a view the server has counted, as
   * the viewer's items are: refused at first (403), the view is counted and the note
   * asked for again; closing the note closes the view (the last one deletes it). */
  async open(id) {
    let note;
    try {
      note = await get('/api/notes/' + encodeURIComponent(id));
    } catch (failure) {
      if (failure.status !== 403) throw failure;
      await post('/api/items/' + encodeURIComponent(id) + '/view', {});
      this.viewing = id;
      note = await get('/api/notes/' + encodeURIComponent(id));
    }
    this.show(note);
    openDialog($('note-dialog'));
  }

  /** Closes the counted view of a view-limited note, if one is open. */
  endView() {
    const id = this.viewing;
    if (!id) return;
    this.viewing = null;
    post('/api/items/' + encodeURIComponent(id) + '/view/close', {})
      .then((answer) => {
        if (!answer?.ended) return;
        toast('The note has ended and is deleted for good');
        this.onChange();
      })
      .catch(this.onError);
  }

  show(note) {
    this.current = note;
    $('note-title').textContent = note.item.name;
    $('note-date').textContent = dateTime(note.item.takenAt ?? note.item.importedAt);
    $('note-body').replaceChildren(renderMarkdown(note.body));
    const strip = $('note-attachments');
    strip.replaceChildren();
    for (const item of note.attachments) {
      const figure = document.createElement('figure');
      figure.className = 'note-attachment';
      figure.dataset.id = item.id;
      if (item.hasThumbnail) {
        const img = document.createElement('img');
        img.alt = item.name;
        img.src = urls.thumbnail(item.id);
        figure.append(img);
      }
      const caption = document.createElement('figcaption');
      caption.textContent = item.name;
      const detach = document.createElement('button');
      detach.type = 'button';
      detach.className = 'btn-link';
      detach.textContent = 'Detach';
      detach.addEventListener('click', () => this.detach(item.id));
      caption.append(' ', detach);
      figure.append(caption);
      strip.append(figure);
    }
    strip.hidden = note.attachments.length === 0;
  }

  forget() {
    this.endView();
    this.current = null;
    $('note-body').replaceChildren();
    $('note-title').textContent = '';
    $('note-attachments').replaceChildren();
  }

  /** The editor, for `note` or for a new note (null). */
  edit(note) {
    this.editing = note;
    $('note-edit-heading').textContent = note ? 'Edit note' : 'New note';
    $('note-edit-title').value = note ? note.item.name : '';
    $('note-edit-body').value = note ? note.body : '';
    openDialog($('note-edit-dialog'));
    $(note ? 'note-edit-body' : 'note-edit-title').focus();
  }

  async save() {
    const title = $('note-edit-title').value;
    const body = $('note-edit-body').value;
    try {
      let note;
      if (this.editing) {
        note = await post('/api/notes/' + encodeURIComponent(this.editing.item.id), { title, body });
      } else {
        note = await post('/api/notes', { title, body, folder: this.folder()?.id ?? null });
      }
      $('note-edit-dialog').close('saved');
      this.show(note);
      openDialog($('note-dialog'));
      toast('Note saved.');
      this.onChange();
    } catch (failure) {
      showError($('note-edit-error'), failure.message);
    }
  }

  /** The picker: the newest photos and videos, to tick and attach to the note shown. */
  async pickPhotos() {
    const [photos, videos] = await Promise.all([
      get('/api/items?kind=photo&limit=' + PICKER_LIMIT), get('/api/items?kind=video&limit=' + PICKER_LIMIT)]);
    const attached = new Set(this.current.attachments.map((item) => item.id));
    const list = $('note-attach-list');
    list.replaceChildren();
    const items = [...photos.items, ...videos.items].filter((item) => !attached.has(item.id));
    for (const item of items) {
      const label = document.createElement('label');
      label.className = 'note-pick';
      const box = document.createElement('input');
      box.type = 'checkbox';
      box.value = item.id;
      label.append(box);
      if (item.hasThumbnail) {
        const img = document.createElement('img');
        img.alt = '';
        img.src = urls.thumbnail(item.id);
        label.append(img);
      }
      const name = document.createElement('span');
      name.textContent = item.name;
      label.append(name);
      list.append(label);
    }
    $('note-attach-empty').hidden = items.length > 0;
    openDialog($('note-attach-dialog'));
  }

  async attachPicked() {
    const ids = [...$('note-attach-list').querySelectorAll('input:checked')].map((box) => box.value);
    if (ids.length === 0) return showError($('note-attach-error'), 'Tick the photos to attach.');
    try {
      const answer = await post('/api/notes/' + encodeURIComponent(this.current.item.id) + '/attach', { ids });
      $('note-attach-dialog').close('saved');
      this.show({ ...this.current, attachments: answer.attachments });
    } catch (failure) {
      showError($('note-attach-error'), failure.message);
    }
  }

  async detach(id) {
    try {
      const answer = await post('/api/notes/' + encodeURIComponent(this.current.item.id) + '/detach', { ids: [id] });
      this.show({ ...this.current, attachments: answer.attachments });
    } catch (failure) {
      this.onError(failure);
    }
  }
}
