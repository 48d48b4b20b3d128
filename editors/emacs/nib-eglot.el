;;; nib-eglot.el --- use `nib serve' through eglot  -*- lexical-binding: t; -*-
;; Load this file, then M-x eglot in a buffer of a git repository.
(require 'eglot)
(dolist (mode '(c-mode c++-mode c-ts-mode c++-ts-mode python-mode python-ts-mode js-mode js-ts-mode
                typescript-mode typescript-ts-mode tsx-ts-mode go-mode go-ts-mode rust-mode rust-ts-mode
                java-mode java-ts-mode))
  (add-to-list 'eglot-server-programs `(,mode . ("nib" "serve"))))
(provide 'nib-eglot)
;;; nib-eglot.el ends here
