;;; emacs_nib.el --- drives editors/emacs/nib-eglot.el in `emacs --batch'  -*- lexical-binding: t; -*-
;; Opens a file of the repository, starts eglot with nib (as M-x eglot does), runs nib-search,
;; nib-context and nib-status, and writes what their buffers show as JSON.
;; Environment: NIB_BIN, NIB_PLUGIN, NIB_FILE, NIB_SEARCH, NIB_SYMBOL, NIB_OUT.
;; Run with -q, not -Q: the site files are what make Debian's elpa-eglot (and the packages it
;; needs) loadable, as in a user's Emacs.
(require 'json)
(defun nib-test--env (name) (or (getenv name) (error "%s is not set" name)))
(defun nib-test--buffer-lines (name)
  (with-current-buffer name (split-string (buffer-substring-no-properties (point-min) (point-max)) "\n")))
(let ((out (nib-test--env "NIB_OUT")))
  (condition-case err
      (progn
        (load (nib-test--env "NIB_PLUGIN"))
        (setq nib-program (nib-test--env "NIB_BIN"))
        (setq eglot-sync-connect t
              project-list-file (make-temp-name  ; a file that does not exist yet: no ~/.emacs.d needed
                                 (expand-file-name "nib-test-projects-" temporary-file-directory)))
        (find-file (nib-test--env "NIB_FILE"))
        (apply #'eglot (eglot--guess-contact))
        (unless (eglot-current-server) (error "eglot did not connect"))
        (nib-search (nib-test--env "NIB_SEARCH"))
        (nib-context (nib-test--env "NIB_SYMBOL"))
        (nib-status)
        (with-temp-file out
          (insert (json-encode `((search . ,(vconcat (nib-test--buffer-lines "*nib-search*")))
                                 (context . ,(vconcat (nib-test--buffer-lines "*nib-context*")))
                                 (status . ,(vconcat (nib-test--buffer-lines "*nib-status*"))))))))
    (error (with-temp-file out (insert (json-encode `((error . ,(error-message-string err)))))))))
(kill-emacs 0)
;;; emacs_nib.el ends here
