"""Images, scaled to fit the pane by default, with zoom in/out and actual size."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QImage, QImageReader, QKeySequence, QPixmap, QResizeEvent, QShortcut
from PySide6.QtWidgets import QLabel, QScrollArea, QToolBar, QVBoxLayout, QWidget

from ...core.errors import DamagedFile

ZOOM_STEP = 1.25
ZOOM_RANGE = (0.05, 16.0)


class ImageViewer(QWidget):
    """A picture in a scroll area: "Fit" (the default) follows the pane's size; zoom leaves fit mode."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.label = QLabel()
        self.label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.scroll = QScrollArea()
        self.scroll.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.scroll.setWidget(self.label)
        self.toolbar = QToolBar()
        self.fit_action = self.toolbar.addAction("Fit", self.fit)
        self.fit_action.setCheckable(True)
        self.toolbar.addAction("100%", lambda: self.set_zoom(1.0))
        self.toolbar.addAction("−", lambda: self.set_zoom(self.zoom() / ZOOM_STEP)).setToolTip("Zoom out")
        self.toolbar.addAction("+", lambda: self.set_zoom(self.zoom() * ZOOM_STEP)).setToolTip("Zoom in")
        self.size_label = QLabel()
        self.toolbar.addSeparator()
        self.toolbar.addWidget(self.size_label)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(self.toolbar)
        layout.addWidget(self.scroll, 1)
        zoom_keys = ((QKeySequence.StandardKey.ZoomIn, ZOOM_STEP), (QKeySequence.StandardKey.ZoomOut, 1 / ZOOM_STEP))
        for keys, step in zoom_keys:
            shortcut = QShortcut(keys, self, context=Qt.ShortcutContext.WidgetWithChildrenShortcut)
            shortcut.activated.connect(lambda step=step: self.set_zoom(self.zoom() * step))
        self._image = QImage()
        self._zoom = 1.0
        self._fit = True

    def open(self, path: str | Path) -> list[str]:
        """Load ``path`` (EXIF orientation applied; first frame of an animation).

        Raises:
            DamagedFile: Qt cannot decode it (the message gives Qt's reason).
        """
        reader = QImageReader(str(path))
        reader.setAutoTransform(True)
        image = reader.read()
        if image.isNull():
            raise DamagedFile(f"{Path(path).name} cannot be shown: {reader.errorString()}")
        self._image = image
        self.size_label.setText(f"{image.width()} × {image.height()} px")
        self.fit()
        return []

    def image(self) -> QImage:
        """The decoded image (null when none)."""
        return self._image

    def zoom(self) -> float:
        """The scale applied to the image (1.0 = actual size)."""
        return self._zoom

    def fit(self) -> None:
        """Scale to fit the pane (never above actual size) and keep fitting as the pane resizes."""
        self._fit = True
        self.fit_action.setChecked(True)
        self._update_pixmap()

    def set_zoom(self, zoom: float) -> None:
        """Show at ``zoom`` × actual size (clamped to 5 %–1600 %), leaving fit mode."""
        self._fit = False
        self.fit_action.setChecked(False)
        self._zoom = min(max(zoom, ZOOM_RANGE[0]), ZOOM_RANGE[1])
        self._update_pixmap()

    def clear(self) -> None:
        """Forget the image."""
        self._image = QImage()
        self.label.clear()
        self.size_label.clear()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        if self._fit:
            self._update_pixmap()

    def _update_pixmap(self) -> None:
        if self._image.isNull():
            return
        if self._fit:
            area = self.scroll.viewport().size()
            scale_w = max(area.width() - 4, 1) / self._image.width()
            scale_h = max(area.height() - 4, 1) / self._image.height()
            self._zoom = min(1.0, scale_w, scale_h)
        size = self._image.size() * self._zoom
        pixmap = QPixmap.fromImage(self._image.scaled(
            size, Qt.AspectRatioMode.KeepAspectRatio, Qt.TransformationMode.SmoothTransformation))
        self.label.setPixmap(pixmap)
        self.label.resize(pixmap.size())
