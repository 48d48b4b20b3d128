;;; nib-eglot.el --- use `nib serve' through eglot  -*- lexical-binding: t; -*-
;; Load this file, then M-x eglot in a buffer of a git repository. Besides what eglot does with
;; any language server (definitions, references, rename, ...), it adds nib's own methods:
;;   M-x nib-search   nib/search; the hits in a grep-mode buffer (RET visits one)
;;   M-x nib-context  nib/context for the region, or a symbol or words read with the one at
;;                    point as default: one identifier is asked as a symbol, anything else as
;;                    an intent; the bundle in a buffer
;;   M-x nib-status   nib/status: the index's version, commit, freshness and views
;; `nib-program' names the nib to start (default "nib", found on PATH).
(require 'eglot)
(require 'grep)
(require 'jsonrpc)
(require 'project)
(require 'seq)

(defgroup nib nil "The nib code-intelligence server." :group 'tools)

(defcustom nib-program "nib"
  "The nib executable `nib serve' is started from."
  :type 'string :group 'nib)

(dolist (mode '(c-mode c++-mode c-ts-mode c++-ts-mode python-mode python-ts-mode js-mode js-ts-mode
                typescript-mode typescript-ts-mode tsx-ts-mode go-mode go-ts-mode rust-mode rust-ts-mode
                java-mode java-ts-mode))
  (add-to-list 'eglot-server-programs `(,mode . ,(lambda (&rest _) (list nib-program "serve")))))

(defun nib--server ()
  "The eglot server of the current buffer, which must be nib's."
  (or (eglot-current-server)
      (user-error "nib: no language server for this buffer (M-x eglot in a file of the repository)")))

(defun nib--show (name lines)
  "Shows LINES in the read-only buffer NAME and returns the buffer."
  (with-current-buffer (get-buffer-create name)
    (let ((inhibit-read-only t))
      (erase-buffer)
      (insert (mapconcat #'identity lines "\n") "\n"))
    (goto-char (point-min))
    (display-buffer (current-buffer))
    (current-buffer)))

(defun nib-search (query)
  "Search the repository for QUERY with nib/search (its auto route)."
  (interactive (list (read-string "nib search: " (thing-at-point 'symbol t))))
  (let* ((root (expand-file-name (project-root (project-current t))))
         (result (jsonrpc-request (nib--server) :nib/search `(:query ,query :k 200)))
         ;; Built backwards (push) and turned around at the end.
         (lines (list "" (format "nib search (%s): %s" (plist-get result :route) query))))
    (seq-doseq (hit (plist-get result :hits))
      (let ((start (plist-get (plist-get hit :range) :start))
            (label (if (plist-get hit :name) (format "%s %s: " (plist-get hit :kind) (plist-get hit :name)) "")))
        (push (format "%s:%d:%d: %s%s" (plist-get hit :path) (1+ (plist-get start :line))
                      (1+ (plist-get start :character)) label
                      (car (split-string (or (plist-get hit :snippet) "") "\n")))
              lines)))
    (when (eq (plist-get result :truncated) t) (push "(more hits exist)" lines))
    (with-current-buffer (nib--show "*nib-search*" (nreverse lines))
      (setq default-directory root)
      (grep-mode))
    result))

(defun nib-context (text)
  "Ask nib/context for TEXT: a symbol when it is one identifier, else an intent."
  (interactive (list (if (use-region-p)
                         (buffer-substring-no-properties (region-beginning) (region-end))
                       (read-string "nib context for: " (thing-at-point 'symbol t)))))
  (let* ((params (if (string-match-p "\\`[[:alpha:]_][[:alnum:]_]*\\'" text)
                     `(:symbols [,text] :budgetTokens 4000)
                   `(:intent ,text :budgetTokens 4000)))
         (result (jsonrpc-request (nib--server) :nib/context params)))
    (with-current-buffer (nib--show "*nib-context*" (split-string (or (plist-get result :text) "") "\n"))
      (view-mode 1))
    result))

(defun nib-status ()
  "Show the index nib answers from: version, commit, freshness and views."
  (interactive)
  (let* ((result (jsonrpc-request (nib--server) :nib/status nil))
         (manifest (plist-get result :manifest))
         (fresh (plist-get result :freshness))
         ;; Built backwards (push) and turned around at the end.
         (lines (reverse
                 (list (format "root        %s" (plist-get result :root))
                      (format "version     %s" (plist-get manifest :version))
                      (format "commit      %s%s" (plist-get manifest :sourceCommit)
                              (if (eq (plist-get manifest :dirty) t) " + uncommitted changes" ""))
                      (format "fresh       %s" (if (eq (plist-get fresh :fresh) t) "yes"
                                                 "no: run `nib index' to catch up"))))))
    (seq-doseq (view (plist-get result :views))
      (push (format "view        %-10s %s%s" (plist-get view :name) (plist-get view :status)
                    (if (plist-get view :error) (concat "  " (plist-get view :error)) ""))
            lines))
    (seq-doseq (path (plist-get fresh :changedFiles)) (push (concat "changed     " path) lines))
    (seq-doseq (path (plist-get fresh :deletedFiles)) (push (concat "deleted     " path) lines))
    (nib--show "*nib-status*" (nreverse lines))
    result))

(provide 'nib-eglot)
;;; nib-eglot.el ends here
