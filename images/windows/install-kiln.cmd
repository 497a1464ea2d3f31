@echo off
rem Installs kiln as cloudbase-init in an image being prepared (run as an administrator, before sysprep).
rem Usage: install-kiln.cmd path\to\kiln-win-x64.exe
setlocal
if "%~1"=="" (echo usage: %~nx0 path\to\kiln-win-x64.exe & exit /b 2)
set DIR=C:\Program Files\Cloudbase Solutions\Cloudbase-Init
mkdir "%DIR%\conf" "%DIR%\log" "%DIR%\LocalScripts" 2>nul
copy /y "%~1" "%DIR%\kiln.exe" || exit /b 1
copy /y "%~dp0cloudbase-init.conf" "%DIR%\conf\" || exit /b 1
copy /y "%~dp0cloudbase-init-unattend.conf" "%DIR%\conf\" || exit /b 1
copy /y "%~dp0Unattend.xml" "%DIR%\conf\" || exit /b 1
mkdir "%WINDIR%\Setup\Scripts" 2>nul
copy /y "%~dp0SetupComplete.cmd" "%WINDIR%\Setup\Scripts\SetupComplete.cmd" || exit /b 1
"%DIR%\kiln.exe" service install --start demand --config-file "%DIR%\conf\cloudbase-init.conf" || exit /b 1
echo kiln installed. Generalize with:
echo   %WINDIR%\System32\Sysprep\sysprep.exe /generalize /oobe /shutdown /unattend:"%DIR%\conf\Unattend.xml"
